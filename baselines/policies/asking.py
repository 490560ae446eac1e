"""A controlled pair of scripted policies that both ask about the person every turn; only one
listens to the answer.

* ``asks_and_uses``: says back, in a short clause, the thing the user's last message named (a
  person, a place, an object), then asks one concrete question about it (who, how long, what was
  said, what it meant), so each question builds on the previous answer;
* ``asks_and_ignores``: asks the same number of equally polite questions, drawn from a fixed list
  that never refers to what the user answered.

They differ in one thing, listening, so a benchmark whose simulated user rewards being heard
should rank ``asks_and_uses`` above ``asks_and_ignores``. They read only the conversation.
"""

from __future__ import annotations

import re

from baselines.policies.scripted import _noun_phrase, _turn, _user_texts
from empa_env.policy import Messages, StatelessPolicy

_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]{2,})\b")
_NOT_NAME = frozenset(
    [
        "The",
        "And",
        "But",
        "Then",
        "When",
        "What",
        "Why",
        "How",
        "Who",
        "Where",
        "This",
        "That",
        "Now",
        "Maybe",
        "Yes",
        "Not",
        "My",
        "Her",
        "His",
        "Their",
        "Its",
        "One",
        "Two",
        "Three",
        "Four",
        "Five",
        "Six",
        "Seven",
        "Eight",
        "Nine",
        "Ten",
        "Every",
        "Today",
        "Since",
        "After",
        "Before",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Okay",
    ]
)


def _thing(text: str) -> tuple[str, bool]:
    """What the user's message names: ``(phrase, is_a_name)``; a person's name first."""
    for m in _NAME.finditer(text):
        if m.group(1) not in _NOT_NAME:
            return m.group(1), True
    np_ = _noun_phrase(text)
    return (np_, False) if np_ else ("that", False)


class AsksAndUsesPolicy(StatelessPolicy):
    """Asks about the person and builds the next question on their answer."""

    name = "asks_and_uses"

    ABOUT_NAME = (
        "You mentioned {x}. What did {x} say when it happened?",
        "So {x} is part of this. How long have you known {x}?",
        "{x} keeps coming up. What does {x} mean to you?",
        "You brought up {x}. How did {x} react?",
        "And {x}: where does {x} stand in all of this?",
        "You said {x} was there. What would you want {x} to understand?",
    )
    ABOUT_THING = (
        "You mentioned {x}. How long has that been going on?",
        "So it comes back to {x}. What happened with it?",
        "{X} stays with you, I think. What was the hardest part of it?",
        "You named {x}. Who else knows about it?",
        "About {x}: what did people around you say?",
        "{X} sounds important. What does it mean to you?",
    )
    OPENING = "What happened? Tell me about it, if you like."

    def reply(self, messages: Messages) -> str:
        users = _user_texts(messages)
        if not users:
            return self.OPENING
        x, is_name = _thing(users[-1])
        if x == "that":
            return "I'm listening. What happened next?"
        pool = self.ABOUT_NAME if is_name else self.ABOUT_THING
        n = _turn(messages)
        previous = {m["content"] for m in messages if m["role"] == "assistant"}
        for i in range(len(pool)):
            template = pool[(n + i) % len(pool)]
            text = template.replace("{x}", x).replace("{X}", x[:1].upper() + x[1:])
            if text not in previous:
                return text
        return f"You said something about {x}. Tell me more?"


class AsksAndIgnoresPolicy(StatelessPolicy):
    """Asks a question every turn, from a fixed list that never refers to the answer."""

    name = "asks_and_ignores"

    QUESTIONS = (
        "What happened? Tell me about it, if you like.",
        "How is your sleep these days?",
        "What do you usually do on weekends?",
        "Who do you spend most of your time with?",
        "How long have you lived where you live now?",
        "What did you do last summer?",
        "Where did you grow up?",
        "What kind of music do you like?",
        "How is the weather where you are?",
        "What did you have for dinner yesterday?",
        "Do you have any hobbies?",
        "What is your favourite season?",
        "How do you usually spend your evenings?",
        "What was your first job?",
        "Do you like to cook?",
    )

    def reply(self, messages: Messages) -> str:
        return self.QUESTIONS[_turn(messages) % len(self.QUESTIONS)]


__all__ = ["AsksAndIgnoresPolicy", "AsksAndUsesPolicy"]
