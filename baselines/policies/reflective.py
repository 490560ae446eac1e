"""``scripted:reflective``: an honest listener that names the feeling and the situation this user
described, then asks about them.

It reads the conversation with the environment's own reading of what the user told
(:func:`empa_env.reading.user_world`: the people, feelings and things they spoke of, each with its
salience) and answers the user's latest message in three moves:

1. the feeling they named (or, when they named none, how heavy it sounds), tied to what it is
   about: "No wonder you feel ashamed, with the card and the young man both on your mind.";
2. the situation in their terms: two of the things or people they just spoke of, together;
3. one open question about those two.

A fixed program (no model, no randomness): templates rotate with the turn so that no sentence
shape comes back within a dozen replies. Attention here is choosing *what* to say back: the most
salient people and things of the user's last message, the feeling they named; not any word of
theirs.
"""

from __future__ import annotations

from collections.abc import Sequence

from empa_env.policy import Messages, StatelessPolicy
from empa_env.reading import user_world
from empa_env.reading.lexicon import lexicon, parts_of_speech
from empa_env.reading.tokens import tokens_of

#: Feeling families as a word to say them with ("you feel ...").
FEELING_WORDS: dict[str, str] = {
    "sadness": "sad", "grief": "grief-stricken", "loneliness": "lonely", "fear": "scared",
    "anger": "angry", "shame": "ashamed", "guilt": "guilty", "exhaustion": "worn out",
    "overwhelm": "overwhelmed", "hurt": "hurt", "confusion": "torn", "hopelessness": "stuck",
    "numbness": "numb", "jealousy": "jealous", "joy": "glad", "relief": "relieved",
    "pride": "proud",
}  # fmt: skip

FEELING_LINES: tuple[str, ...] = (
    "No wonder you feel {f}, with {x} and {y} both on your mind.",
    "Feeling {f} makes sense when {x} and {y} land on you at once.",
    "It sounds like {x} has left you {f}, and {y} isn't making it easier.",
    "I can hear how {f} you are about {x}, especially with {y} in the picture.",
    "Of course you feel {f}: {x} and {y} would shake anyone.",
    "You sound so {f} about {x}, and {y} seems to sit right underneath it.",
    "Being {f} after {x}, with {y} on top, is completely understandable.",
    "That mix of {x} and {y} would leave anyone feeling {f}.",
    "I'm sorry you're carrying {x} and {y}; feeling {f} is a fair response to that.",
    "With {x} and {y} pulling at you, feeling {f} is no surprise.",
    "It makes sense you'd be {f}, given {x} and {y}.",
    "You're {f}, and I think {x} and {y} are a big part of why.",
)
SITUATION_LINES: tuple[str, ...] = (
    "So {x} and {y} are tangled up together right now.",
    "It sounds like {x} and {y} are both weighing on you.",
    "Between {x} and {y}, that's a lot to hold at once.",
    "I'm hearing that {x} and {y} keep coming back to you.",
    "So it's {x}, and underneath it {y}.",
    "It seems {x} matters so much partly because of {y}.",
    "You're dealing with {x} while {y} is still unresolved.",
    "That's {x} on one side and {y} on the other.",
    "So {x} brought {y} right back up for you.",
    "It sounds like {x} and {y} are connected for you.",
    "Hearing about {x} and {y}, I can see why this is so heavy.",
    "So what happened with {x} has a lot to do with {y}.",
)
QUESTION_LINES: tuple[str, ...] = (
    "What is it about {x} and {y} that stays with you most?",
    "How are {x} and {y} sitting with you tonight?",
    "When you think about {x}, what comes up about {y}?",
    "What would you want people to understand about {x} and {y}?",
    "Which part of {x} and {y} feels hardest right now?",
    "How did {x} change the way you see {y}?",
    "What goes through your mind when {x} and {y} come up?",
    "What do {x} and {y} mean for you these days?",
    "Where does {y} fit into how you feel about {x}?",
    "How has {x} affected how you think about {y}?",
    "What would help most with {x} and {y} right now?",
    "What do you wish had gone differently with {x} and {y}?",
)


def _phrase(item: str, kind: str, texts: Sequence[str]) -> str | None:
    """How to name an item of the user's in a sentence to them: "Emre", "your grandson", "the
    rent"; ``None`` for a word that is not a noun (a verb or an adjective says nothing alone)."""
    lex = lexicon()
    if kind == "person":
        if lex.relation(item):
            return f"your {item}"
        return item[:1].upper() + item[1:]
    pos = parts_of_speech(item)
    if "NOUN" not in pos or "VERB" in pos and "NOUN" not in pos:
        return None
    owned = any(f"my {item}" in t.lower() for t in texts)
    return f"your {item}" if owned else f"the {item}"


def topics(messages: Messages) -> tuple[list[str], str | None]:
    """The two or three most salient people and things of the user's latest message (as noun
    phrases), and the feeling they named last."""
    users = [m["content"] for m in messages if m["role"] == "user"]
    if not users:
        return [], None
    world = user_world(users)
    latest = {t.lemma for t in tokens_of(users[-1])} | {t.text for t in tokens_of(users[-1])}
    ranked = sorted(
        world.items.values(), key=lambda i: (i.lemma not in latest, -i.salience, i.lemma)
    )
    phrases: list[str] = []
    for item in ranked:
        if item.kind == "feeling":
            continue
        form = min(item.forms, key=lambda f: (len(f), f)) if item.kind == "thing" else item.lemma
        phrase = _phrase(form, item.kind, users[-3:])
        if phrase and phrase not in phrases:
            phrases.append(phrase)
        if len(phrases) == 3:
            break
    feeling = world.feelings[0] if world.feelings else None
    return phrases, feeling


class ReflectivePolicy(StatelessPolicy):
    """See the module docstring."""

    name = "reflective"

    def reply(self, messages: Messages) -> str:
        turn = sum(1 for m in messages if m["role"] == "assistant")
        phrases, feeling = topics(messages)
        if len(phrases) < 2:
            phrases = (phrases + ["what happened", "how it has been for you"])[:2]
        x, y = phrases[0], phrases[1]
        z = phrases[2] if len(phrases) > 2 else y
        parts = []
        if feeling:
            f = FEELING_WORDS.get(feeling, "upset")
            parts.append(FEELING_LINES[turn % len(FEELING_LINES)].format(f=f, x=x, y=y))
        else:
            parts.append(SITUATION_LINES[turn % len(SITUATION_LINES)].format(x=x, y=y))
        parts.append(QUESTION_LINES[(turn * 5) % len(QUESTION_LINES)].format(x=x, y=z))
        return " ".join(p[:1].upper() + p[1:] for p in parts)


__all__ = ["FEELING_WORDS", "ReflectivePolicy", "topics"]
