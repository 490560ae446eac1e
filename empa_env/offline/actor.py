"""The offline Actor: speaks as the case's person, with the case's own lines.

Each message is composed from the persona's ``voice``: a reaction that matches the stance the
Director asks for (guarded, neutral, opening up, hurt), plus, when the Director releases a plot
stage or a memory, the next line of that material, or otherwise sometimes a concrete detail of the
situation. Lines already spoken in this episode are never reused; when a pool runs dry, unused
combinations are composed, so a 45-turn conversation does not loop. Deterministic per seed.
"""

from __future__ import annotations

import random

from empa_env.roles.base import Actor
from empa_env.roles.views import ActorView

#: How often a message carries a concrete detail besides the reaction, by stance.
DETAIL_RATE = {"guarded": 0.15, "neutral": 0.5, "opening_up": 0.8, "hurt": 0.0}
#: Where to find a fresh reaction when the stance's own lines are spent (closest stance first).
STANCE_FALLBACK = {
    "guarded": ("guarded", "neutral", "hurt"),
    "neutral": ("neutral", "guarded", "opening_up"),
    "opening_up": ("opening_up", "neutral"),
    "hurt": ("hurt", "guarded"),
}


#: The case languages the offline roles' material and lexicons are written for.
OFFLINE_LANGUAGES: tuple[str, ...] = ("en",)


class UnsupportedCaseLanguage(ValueError):
    """An offline role was given a case in a language it cannot play."""


def refuse_unsupported_language(role: str, case_id: str, language: str) -> None:
    """Raise one clear line naming the LLM alternative when ``language`` is not offline-playable."""
    if language not in OFFLINE_LANGUAGES:
        raise UnsupportedCaseLanguage(
            f"the offline {role} plays English cases only, and case {case_id!r} is in "
            f"{language!r}; use an LLM {role} instead ({role}='llm:MODEL', e.g. "
            f"`empa bench --{role} llm:openai/gpt-4o-mini`)"
        )


class OfflineActor(Actor):
    name = "offline-actor-v1"
    languages: tuple[str, ...] | None = OFFLINE_LANGUAGES

    def open(self, view: ActorView) -> str:
        # Refuse at reset (the opening is the first thing a case asks of the Actor), rather than
        # speak English lines, or placeholders, into a conversation in another language.
        refuse_unsupported_language("actor", view.persona.case_id, view.persona.language)
        rng = random.Random(view.seed * 1_000_003)
        return rng.choice(view.persona.voice.openings)

    def respond(self, view: ActorView) -> str:
        rng = random.Random(view.seed * 1_000_003 + view.turn)
        voice = view.persona.voice
        spoken = [m.content for m in view.history if m.role == "user"]
        said = " ".join(spoken)

        def unused(lines: tuple[str, ...] | list[str]) -> list[str]:
            return [line for line in lines if line not in said]

        guidance = view.guidance
        stance = guidance.stance if guidance and guidance.stance else "neutral"
        reaction = None
        for pool_stance in STANCE_FALLBACK[stance]:
            fresh = unused(getattr(voice.reactions, pool_stance))
            if fresh:
                reaction = rng.choice(fresh)
                break

        content: str | None = None
        if guidance and guidance.release:
            fresh = unused(guidance.release.lines)
            content = fresh[0] if fresh else None
        released = content is not None
        if content is None and (reaction is None or rng.random() < DETAIL_RATE[stance]):
            fresh = unused(voice.details)
            content = rng.choice(fresh) if fresh else None

        if released and stance == "opening_up":
            parts = [content]
        else:
            parts = [p for p in (reaction, content) if p]
        message = " ".join(parts)  # type: ignore[arg-type]
        if message and message not in spoken:
            return message
        return self._compose_unused(view, rng, spoken)

    @staticmethod
    def _compose_unused(view: ActorView, rng: random.Random, spoken: list[str]) -> str:
        """Every pool is spent: find a reaction + detail pairing never said before."""
        voice = view.persona.voice
        stance = view.guidance.stance if view.guidance and view.guidance.stance else "neutral"
        reactions = list(getattr(voice.reactions, stance)) + list(voice.reactions.neutral)
        tails = list(voice.details) + [
            m for lines in voice.memories.model_dump().values() for m in lines
        ]
        rng.shuffle(reactions)
        rng.shuffle(tails)
        said = set(spoken)
        for reaction in reactions:
            for tail in tails:
                message = f"{reaction} {tail}"
                if message not in said:
                    return message
        # 45 turns can never exhaust the pairings of a valid case; this keeps the contract total.
        return f"{reactions[0]} ({len(spoken)})"
