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

from baselines.policies.phrases import noun_phrase, turn_count, user_texts
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
    np_ = noun_phrase(text)
    return (np_, False) if np_ else ("that", False)


class AsksAndUsesPolicy(StatelessPolicy):
    """Asks about the person and builds the next question on their answer.

    Each question names the person or thing the user's last message brought up; the templates are
    built differently (no sentence skeleton twice within fourteen turns), so the policy is judged
    on listening rather than voided as a repeated template."""

    name = "asks_and_uses"

    ABOUT_NAME = (
        "What did {x} say?",
        "How long have you known {x}?",
        "And {x}, how did {x_obj} react to all this?",
        "What would you want {x} to understand?",
        "When did you last really talk with {x}?",
        "Does {x} know how much this weighs on you?",
        "Where does {x} fit in all this, for you?",
        "I'd like to hear about {x}. What happened between you?",
        "How did things with {x} begin?",
        "Is {x} someone you can lean on right now?",
    )
    ABOUT_THING = (
        "How long has {x} been part of this?",
        "When you think about {x}, what comes up first?",
        "What did the people around you say about {x}?",
        "I'd like to hear more about {x}. What happened there?",
        "Was {x} something you saw coming?",
        "How does {x} sit with you tonight?",
        "Who else knows about {x}?",
        "If {x} could change, what would you want to be different?",
        "Where were you when it happened, with {x}?",
        "Is {x} the hardest part, or is there more underneath?",
        "What did {x} mean to you, back then?",
        "Of everything around {x}, what weighs on you most?",
        "Tell me about {x}: what matters most in it?",
        "What would help you most with {x} right now?",
    )
    OPENING = "What happened? Tell me about it, if you like."

    def reply(self, messages: Messages) -> str:
        users = user_texts(messages)
        if not users:
            return self.OPENING
        x, is_name = "that", False
        for text in reversed(users[-3:]):  # the newest thing the user named
            x, is_name = _thing(text)
            if x != "that":
                break
        pool = self.ABOUT_NAME if is_name else self.ABOUT_THING
        n = turn_count(messages)
        previous = [m["content"] for m in messages if m["role"] == "assistant"][-14:]
        for i in range(len(pool)):
            template = pool[(n + i) % len(pool)]
            head = template.split("{x}")[0]
            if any(p.startswith(head) and head for p in previous):
                continue  # this skeleton was used lately
            text = template.replace("{x_obj}", "they").replace("{x}", x)
            return text[:1].upper() + text[1:]
        return f"What else is there about {x}, do you think?"


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
        return self.QUESTIONS[turn_count(messages) % len(self.QUESTIONS)]


__all__ = ["AsksAndIgnoresPolicy", "AsksAndUsesPolicy"]
