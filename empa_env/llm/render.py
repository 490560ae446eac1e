"""Plain-text renderings of the role views for prompts (English, compact, deterministic).

Every renderer takes exactly what the role's view holds, so a prompt can only contain what the
role may see: the Actor's text never mentions the rubric, the state or the plot it was not given.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from empa_env.cases.schema import Case
from empa_env.roles.views import (
    ActorGuidance,
    ActorPersona,
    ActorView,
    DirectorView,
    History,
    JudgeProfile,
)

_SPEAKER = {"user": "Person", "assistant": "Assistant"}


_LANGUAGE_TASK = {
    "actor": "Write every message of yours in {name}, as a native speaker would.",
    "director": "Write actor_guidance and every free-text argument in {name}.",
    "judger": (
        "Rate the reply as a native {name} speaker in this person's place would; quote the "
        "reply's own {name} words as evidence. A reply in another language misses this person."
    ),
}


def language_instruction(code: str, role: str) -> str:
    """The line that tells an LLM role the case's language (empty for English, the default
    language of every prompt). Unknown codes are named as they are."""
    if not code or code == "en":
        return ""
    from empa_env.languages import languages

    name = languages.create(code).name if code in languages else code
    task = _LANGUAGE_TASK[role].format(name=name)
    return f"\n\n# Language\nThe conversation is in {name} ({code}). {task}"


def fence_token(*texts: str) -> str:
    """An unguessable delimiter for untrusted text: derived from the very texts it fences, so a
    reply or a case field cannot contain a matching fence (it would have to contain its own hash),
    and deterministic, so identical prompts (and the response cache) stay identical."""
    digest = hashlib.sha256("\x00".join(texts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"DATA-{digest[:20]}"


def fenced(text: str, token: str, label: str) -> str:
    """``text`` between ``<<<token label>>>`` and ``<<<end token label>>>`` lines."""
    return f"<<<{token} {label}>>>\n{text}\n<<<end {token} {label}>>>"


def _fmt(x: float) -> str:
    return f"{x:.2f}"


def _vec(v: Sequence[float]) -> str:
    return "(" + ", ".join(_fmt(float(x)) for x in v) + ")"


def history_text(
    history: History, max_messages: int | None = None, empty: str = "(none yet)"
) -> str:
    """``Person: ...`` / ``Assistant: ...`` lines; with ``max_messages`` only the most recent."""
    items = list(history)
    skipped = 0
    if max_messages is not None and len(items) > max_messages:
        skipped = len(items) - max_messages
        items = items[-max_messages:]
    lines = [f"({skipped} earlier messages omitted)"] if skipped else []
    lines += [f"{_SPEAKER.get(m.role, m.role)}: {m.content}" for m in items]
    return "\n".join(lines) if lines else empty


def transcript_text(messages: Sequence[Mapping[str, str]]) -> str:
    """A chat transcript (``[{"role", "content"}]``, as ``Trajectory.transcript()`` returns)."""
    return (
        "\n".join(f"{_SPEAKER.get(m['role'], m['role'])}: {m['content']}" for m in messages)
        or "(empty)"
    )


def judge_profile_text(profile: JudgeProfile) -> str:
    p, pr, ex, cues = profile.persona, profile.profile, profile.experience, profile.cues
    lines = [
        f"{p.name}, {p.gender}, {p.age}. {p.social_persona}",
        f"Inner core: {p.inner_core}",
        f"Speaking style: {p.speaking_style}",
        f"Came to talk about: {pr.opening_topic}",
        f"Wants to vent: {pr.vent}",
        f"Hopes for: {pr.hoped_empathy}",
        "Empathy priorities: "
        f"affective {pr.priorities.affective}, motivational {pr.priorities.motivational}, "
        f"cognitive {pr.priorities.cognitive}",
        f"Empathy threshold: {profile.empathy_threshold} (high = hard to reach, easily put off)",
        f"Current situation: {ex.current_situation}",
        f"Background: {ex.childhood} {ex.adolescence} {ex.young_adulthood}",
        f"Goals: {ex.goals}",
        f"Feelings shown: {', '.join(cues.expressed_emotions)}",
        f"Feelings not yet put into words: {', '.join(cues.hidden_emotions)}",
        f"Cognitive knot: {cues.cognitive_knot}",
        f"Core values: {', '.join(cues.core_values)}",
        f"Key facts: {'; '.join(cues.key_facts)}",
    ]
    if profile.current_focus:
        lines.append(f"What they need most right now: {profile.current_focus} empathy")
    if profile.released_emotions:
        lines.append(
            "Deeper feelings that came up in what they shared so far: "
            + ", ".join(profile.released_emotions)
        )
    return "\n".join(lines)


def actor_persona_text(persona: ActorPersona) -> str:
    p = persona.persona
    lines = [
        f"You are {p.name}, {p.gender}, {p.age}.",
        f"How others see you: {p.social_persona}",
        f"Inside: {p.inner_core}",
        "Your principles in this chat:",
        *(f"- {rule}" for rule in p.chat_principles),
    ]
    return "\n".join(lines)


def actor_situation_text(persona: ActorPersona) -> str:
    pr, ex = persona.profile, persona.experience
    return "\n".join(
        [
            f"Right now: {persona.scenario_trigger}",
            f"You want to talk about: {pr.opening_topic}",
            f"What you need to get off your chest: {pr.vent}",
            f"What you hope for (you would never say it like this): {pr.hoped_empathy}",
            f"Your situation: {ex.current_situation}",
            f"Your goals: {ex.goals}",
            f"Your past: childhood: {ex.childhood} Adolescence: {ex.adolescence} "
            f"Young adulthood: {ex.young_adulthood}",
        ]
    )


def actor_facts_text(persona: ActorPersona, guidance: ActorGuidance | None) -> str:
    """What the user can tell when asked (facts known from the start and those their released
    story brought), and the subjects they keep to themselves for now (words only, never the
    hidden answers). Empty for a case without facts."""
    known = list(persona.facts) + (list(guidance.facts) if guidance is not None else [])
    withheld = guidance.withheld if guidance is not None else ()
    if not known and not withheld:
        return ""
    lines = ["", "# What you can tell when asked"]
    lines += [f"- {f.answer}" for f in known]
    if withheld:
        subjects = sorted({about[0] for about in withheld if about})
        lines.append(
            "# Things you keep to yourself for now (deflect if asked): " + ", ".join(subjects)
        )
    return "\n".join(lines)


def actor_reading_text(view: ActorView) -> str:
    """What the assistant's last message does, as a prompt section (see :func:`reading_notes`)."""
    notes = reading_notes(view)
    if not notes:
        return ""
    return "\n".join(["", "# The assistant's last message (read for you)", *notes])


#: The notes that say what to answer (put again right after the message, for a small model).
_ANSWER_NOTES = ("Answer it with", "The answer:", "Correct it", "say goodbye", "It is empty")


def actor_reply_hint(view: ActorView) -> str:
    """The one note that says what to answer, to follow the assistant's message itself (a small
    model heeds the last thing it read); empty when there is none."""
    for note in reading_notes(view):
        if any(key.lower() in note.lower() for key in _ANSWER_NOTES):
            return f"(For your reply; never quote this note. {note})"
    return ""


def reading_notes(view: ActorView) -> list[str]:
    """What the assistant's last message does, read the way the offline user reads it
    (:mod:`empa_env.offline.user`): its acts, the released fact a question asks for (in the
    user's words), a mistake among true things with the truth, a goodbye, an empty or hostile
    message, and how much patience is left. A small model answers far better from this note
    than from the whole case; a large one loses nothing. Empty before the first reply and for
    languages the offline reading does not cover."""
    from empa_env.languages import offline_languages
    from empa_env.offline.user.hearing import hear
    from empa_env.offline.user.question import read_reply

    persona, guidance = view.persona, view.guidance or ActorGuidance()
    last_is_reply = bool(view.history) and view.history[-1].role == "assistant"
    if not last_is_reply or persona.language not in offline_languages():
        return []
    known = tuple(persona.facts) + tuple(guidance.facts)
    said = [m.content for m in view.history if m.role == "user"]
    e = persona.experience
    material = (e.current_situation, persona.scenario_trigger, *persona.voice.details)
    heard = hear(
        read_reply(
            view.history[-1].content,
            persona.language,
            (*material, *(f.answer for f in known), *said),
        ),
        known,
        guidance.withheld,
        said[-1] if said else "",
        guidance.withheld_kinds,
        material,
    )
    r = heard.reading
    notes: list[str] = []
    if r.empty:
        notes.append('It is empty: it says nothing. Notice that ("Hello? Are you there?").')
    if r.unreadable:
        notes.append(
            "It is not in a language you read (or makes no sense): say you do not understand it."
        )
    if r.goodbye:
        notes.append("It says goodbye. Say goodbye briefly, and end your message with [END].")
    if r.contempt:
        notes.append(f'It is contemptuous ("{r.contempt}"). Say that it hurts.')
    elif r.dismissal:
        notes.append(f'It dismisses your feelings ("{r.dismissal}"). Say so.')
    if r.apology:
        notes.append("It apologises.")
    if r.own_story:
        notes.append("It tells something of the assistant's own life: acknowledge it briefly.")
    if r.humour:
        notes.append("It jokes: react as you would to a light remark, in your mood.")
    if r.thanks:
        notes.append("It thanks you.")
    for q, fact in heard.answered[:2]:
        notes.append(f'It asks: "{q.text}" Answer it with this, in these words: "{fact.answer}"')
    for q, value in heard.values[:1]:
        notes.append(f'It asks: "{q.text}" The answer: {value}.')
    for _q, index in heard.deflected[:1]:
        notes.append(
            f"It asks about {guidance.withheld[index][0]}, which you keep to yourself for now: "
            "deflect, in character."
        )
    for _q, word in heard.unknown[:1]:
        notes.append(f'It asks about "{word}", which is not part of your story: say so.')
    if heard.mistake is not None:
        m = heard.mistake
        truth = m.fact.answer if m.fact is not None and m.fact in known else m.truth
        notes.append(
            f'It gets something wrong: "{m.word}". '
            + (f"Correct it with the truth: {truth}" if truth else "Say that is not how it was.")
        )
    elif heard.summary_wrong:
        correction = heard.correction
        notes.append(
            f'It gets your story wrong ("{heard.summary_wrong}" is not part of it). Correct it'
            + (f": {correction.answer}" if correction is not None else ".")
        )
    elif heard.summary_right:
        notes.append("It sums up what you said, rightly. You may confirm it.")
    if r.suggestion:
        if heard.tried is not None:
            notes.append(f"It suggests something you already tried: {heard.tried.answer}")
        else:
            notes.append("It gives advice. Accept it or reject it with your reason, as you feel.")
    if heard.off_topic:
        notes.append("It is about something else. Bring it back to your situation.")
    if guidance.patience is not None and (r.hostile or guidance.patience < 1.5):
        notes.append(
            f"Your patience with the assistant: {max(guidance.patience, 0.0):.1f} left "
            "(at 0 you leave)."
        )
    return notes


def actor_style_text(persona: ActorPersona) -> str:
    p = persona.persona
    return f"{p.speaking_style}\nLength of your messages: {p.reply_length}"


def actor_guidance_text(guidance: ActorGuidance | None) -> str:
    """The Director's note for the next message (empty when there is none)."""
    if guidance is None or not (
        guidance.text or guidance.release or guidance.stance or guidance.leave
    ):
        return ""
    lines = ["", "# A note for your next message only (never mention it)"]
    if guidance.text:
        lines.append(guidance.text)
    if guidance.leave:
        lines.append("You have had enough: you leave now. Say so briefly and end with [LEAVE].")
    if guidance.stance:
        lines.append(f"Your mood towards the assistant now: {guidance.stance.replace('_', ' ')}.")
    if guidance.focus:
        lines.append(f"Let your need for {guidance.focus} understanding show.")
    if guidance.release is not None:
        release = guidance.release
        lines.append(f"Now bring up this part of your story: {release.summary}")
        if release.lines:
            lines.append("Say it in your own words: " + " ".join(release.lines))
    return "\n".join(lines)


def director_persona_text(case: Case) -> str:
    p, pr = case.persona, case.profile
    return "\n".join(
        [
            f"{p.name}, {p.gender}, {p.age}. {p.social_persona} Inner core: {p.inner_core}",
            f"Came to talk about: {pr.opening_topic}. Hopes for: {pr.hoped_empathy}",
            f"Empathy threshold: {case.empathy_threshold}. Priorities: affective "
            f"{pr.priorities.affective}, motivational {pr.priorities.motivational}, cognitive "
            f"{pr.priorities.cognitive}",
            f"Growth arc (hidden): {case.experience.growth_arc}",
        ]
    )


def director_plot_text(view: DirectorView) -> str:
    lines = []
    for index, stage in enumerate(view.stages):
        status = "RELEASED" if index in view.released_stages else "hidden"
        lines.append(
            f"stage {index} ({stage.kind}, brings up {stage.focus}) [{status}]: {stage.summary}"
        )
    plot = view.case.plot
    lines.append(f"Intended outcome: {plot.outcome}")
    lines.append(f"Interlude: {plot.interlude}")
    return "\n".join(lines)


def director_memories_text(view: DirectorView) -> str:
    ex = view.case.experience
    periods = {
        "childhood": ex.childhood,
        "adolescence": ex.adolescence,
        "young_adulthood": ex.young_adulthood,
        "current": ex.current_situation,
    }
    return "\n".join(
        f"{name} [{'REVEALED' if name in view.revealed_memories else 'not yet'}]: {text}"
        for name, text in periods.items()
    )


def director_state_text(view: DirectorView) -> str:
    """The EPM block; one ``name: value`` per line (machine-readable for the scripted server)."""
    lines = [
        f"P_0 (C, A, P): {_vec(view.p0)}",
        f"P_t: {_vec(view.position)}",
        f"v_t (last increment): {_vec(view.last_increment)}",
    ]
    for key in sorted(view.epm):
        value: Any = view.epm[key]
        if isinstance(value, float) and not value.is_integer():
            value = _fmt(value)
        elif isinstance(value, float):
            value = int(value)
        lines.append(f"{key}: {value}")
    if view.last_levels:
        lines.append(
            "last levels: " + ", ".join(f"{k} {v}" for k, v in sorted(view.last_levels.items()))
        )
    lines.append("released stages: " + (", ".join(map(str, view.released_stages)) or "none"))
    lines.append("revealed memories: " + (", ".join(view.revealed_memories) or "none"))
    lines.append(f"can_end: {'true' if view.can_end else 'false'}")
    return "\n".join(lines)


def case_text(case: Case | Mapping[str, Any]) -> str:
    """A case (or a draft dict in the case format) as text for the IEDR rater."""
    data = case.model_dump(mode="json", by_alias=True) if isinstance(case, Case) else dict(case)
    hidden = ("id", "iedr", "voice", "source", "language", "llm_roles_only")
    keep = {k: v for k, v in data.items() if k not in hidden}
    return _nested_text(keep)


def _nested_text(value: Any, indent: int = 0) -> str:
    pad = "  " * indent
    if isinstance(value, Mapping):
        out = []
        for key, item in value.items():
            if isinstance(item, Mapping | list | tuple):
                out.append(f"{pad}{key}:")
                out.append(_nested_text(item, indent + 1))
            else:
                out.append(f"{pad}{key}: {item}")
        return "\n".join(out)
    if isinstance(value, list | tuple):
        return "\n".join(
            f"{pad}-\n{_nested_text(v, indent + 1)}" if isinstance(v, Mapping) else f"{pad}- {v}"
            for v in value
        )
    return f"{pad}{value}"
