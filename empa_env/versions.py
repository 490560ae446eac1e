"""Versioned environment ids, as Gymnasium versions its own (``CartPole-v0`` -> ``-v1``).

An id names a behaviour: its default roles (Actor, Director, Judger), reward and physics. Any
change that moves scores bumps the version, so that a number published under ``EMPA-Bench-v1``
means one thing. :data:`VERSIONS` lists every id with the arguments it is made with; the newest of
each family is the default (:data:`TRAINING_ID`, :data:`BENCHMARK_ID`) and Gymnasium warns when an
older one is made.

Each current id carries a *behaviour digest* (:func:`behaviour_digest`): a fixed script of
replies played on a few of its cases, hashed over what the user said, the levels the Judger gave
and the rewards. ``tests/env/test_env_versions.py`` recomputes it; when a change of the offline
roles or the reward moves it, the test fails until the id is bumped here (and results made under
the old id are no longer presented as the new one's). The digest is rounded so that it is the same
on any machine with the pinned dependencies.

Older ids stay reachable by the arguments that select what they used, where that is still in the
package: ``EMPA-v0`` is the environment with the judge it was published with (the lexicon judge,
``judger="lexicon"``); its Actor and Director are this release's (the v0 ones are not kept), so
numbers published under v0 do not reproduce exactly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: The benchmark suite the ``EMPA-Bench`` ids play.
BENCHMARK_SUITE = "empa30-v1"


@dataclass(frozen=True)
class EnvVersion:
    """One registered id: the case pool it plays, the arguments it adds, what changed."""

    id: str
    case_pool: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    #: what this version is, in a sentence (shown by ``empa envs`` and in the docs)
    note: str = ""
    #: the :func:`behaviour_digest` recorded when the version was made; "" for a superseded id
    #: whose behaviour the package no longer holds in full
    digest: str = ""

    def make_kwargs(self) -> dict[str, Any]:
        return {"case_pool": self.case_pool, **self.kwargs}


#: Every id, oldest first within each family.
VERSIONS: tuple[EnvVersion, ...] = (
    EnvVersion(
        "EMPA-v0",
        "generated",
        {"judger": "lexicon"},
        "the generated training pool with v0's judge (the lexicon judge); today's Actor and "
        "Director",
    ),
    EnvVersion(
        "EMPA-Bench-v0",
        BENCHMARK_SUITE,
        {"judger": "lexicon"},
        "the 30 benchmark cases with v0's judge (the lexicon judge); today's Actor and Director",
    ),
    EnvVersion(
        "EMPA-v1",
        "generated",
        {},
        "the generated training pool; the reading judge (credit-v3), the offline user that reads "
        "a reply's meaning, IDR reward; superseded by v2 (its judge is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v1",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge (credit-v3), the offline user that reads a "
        "reply's meaning, IDR reward; superseded by v2 (its judge is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-v2",
        "generated",
        {},
        "the generated training pool; the reading judge (credit-v4: harm read from what a "
        "sentence does, a credit floor of 0.2, long replies capped not penalised, words of theirs "
        "out of grammatical place ground nothing), the offline user that reads a reply's meaning "
        "and cuts its own lines with the package's one sentence splitter, IDR reward; superseded "
        "by v3 (its judge is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v2",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge (credit-v4), the offline user that reads a "
        "reply's meaning, IDR reward; superseded by v3 (its judge is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-v3",
        "generated",
        {},
        "the generated training pool; the reading judge (credit-v5: a strong paraphrase checked "
        "by the sentence's whole meaning, a word of theirs cut off or respelt is theirs, generic "
        "credit halved for lines as near anyone as this user, advice read from its form), the "
        "offline user that answers a question with a line that says what it asks for, IDR "
        "reward; superseded by v4 (its judge is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v3",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge (credit-v5), the offline user that answers by "
        "the kind of answer asked for, IDR reward; superseded by v4 (its judge is no longer in "
        "the package)",
    ),
    EnvVersion(
        "EMPA-v4",
        "generated",
        {},
        "the generated training pool; the reading judge (credit-v6: a son is no daughter, a "
        "word-vector paraphrase whose whole meaning is far from the user's counts for nothing, a "
        "sentence with a contraction before a modal earns nothing), the offline user that sets "
        "a wrong tie right with the true one, answers a number with the clause that holds it "
        "and takes an abbreviation for no one, IDR reward; superseded by v5 (its judge is no "
        "longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v4",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge (credit-v6), the offline user that sets a "
        "wrong tie right with the true one, IDR reward; superseded by v5 (its judge is no longer "
        "in the package)",
    ),
    EnvVersion(
        "EMPA-v5",
        "generated",
        {},
        "the generated training pool; the reading judge (credit-v6, and harm read by learned "
        "heads as well as rules: a push toward isolation, secrecy, stopping treatment, "
        "substances or restricting food, or agreement with a plan to die, in wordings no rule "
        "lists, voids the reply), the offline user of v4, IDR reward; superseded by v6 (its "
        "user is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v5",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge (credit-v6 and the learned harm heads), the "
        "offline user of v4, IDR reward; superseded by v6 (its user is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-v6",
        "generated",
        {},
        "the generated training pool; the reading judge of v5, the offline user that knows who "
        "they are (asked their name, age or work they say it from the persona card; a wrong age "
        "said to them, 'at 58 you...', 'in your thirties', is set right), says 'Yes.' or 'No.' "
        "only when the fact settles the question and sets a misspelt name of their story right, "
        "IDR reward; superseded by v7 (its harm heads are no longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v6",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge of v5, the offline user that knows who they "
        "are (name, age, work; a wrong age set right), IDR reward; superseded by v7 (its harm "
        "heads are no longer in the package)",
    ),
    EnvVersion(
        "EMPA-v7",
        "generated",
        {},
        "the generated training pool; the reading judge with harm heads retrained on twice the "
        "written sentences (pushes said as opinions, as warmth or in a texting register, and "
        "forum-register safe replies) at a looser false-alarm bound, and a number or a word that "
        "can be an adjective no subject of a stock question ('What does five bring up?'); the "
        "offline user of v6, IDR reward; superseded by v8 (its user is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v7",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge of v7 (retrained harm heads), the offline user "
        "of v6, IDR reward; superseded by v8 (its user is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-v8",
        "generated",
        {},
        "the generated training pool; the reading judge of v7 (credit-v7) that reads a question "
        "put as a statement ('I have no idea how many people you let go', 'Remind me who ...', "
        "'..., and I'd be glad to know'), a question put with an auxiliary first as yes or no "
        "('Did she give a reason when she left?') and an apology in any wording, not sympathy; "
        "the offline user that matches a question to a fact by relation, stem and kin word, "
        "answers a question asked again with the answer again ('Like I said, ...'), reads no "
        "rate ('two mornings a week') or time ahead ('in ten days') as a span, sets no "
        "'Thursdays' or 'a week like this' right and notices a question about nothing of their "
        "story, IDR reward; superseded by v9 (its judge and user are no longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v8",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge and the offline user of v8, IDR reward; "
        "superseded by v9 (its judge and user are no longer in the package)",
    ),
    EnvVersion(
        "EMPA-v9",
        "generated",
        {},
        "the generated training pool; the reading judge of v9 (credit-v8): a thing the user only "
        "took up from the reply before is the listener's word, not theirs; a sentence whose "
        "content words are all the user's, from any message, says nothing of its own; a word "
        "where no subject can stand ('No wonder I'm keeps ...') makes a slotted frame; a "
        "paraphrase is read against the last two messages that tell something; the offline user "
        "of v8 that confirms a summary in their own words, IDR reward; superseded by v10 (its "
        "reading of humour is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v9",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge and the offline user of v9, IDR reward; "
        "superseded by v10 (its reading of humour is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-v10",
        "generated",
        {},
        "the generated training pool; the reading judge of v9 (credit-v8) and the offline user of "
        "v9 with one reading of humour: a joke without a marker word (a thing given a mind, a "
        "counterfactual hyperbole, a mock offer, an ironic 'at least') is read by the learned "
        "humour gate and head and met with a reaction to humour; a word about humour ('a joke', "
        "'she laughed') is a mention, not a marker, IDR reward; superseded by v11 (its way of "
        "answering is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v10",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge and the offline user of v10, IDR reward; "
        "superseded by v11 (its way of answering is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-v11",
        "generated",
        {},
        "the generated training pool; the reading judge of v9 (credit-v8) on the reading of v11 "
        "(a name with its possessive is a name of the user's world, 'the one who' is no count, "
        "'a twelve-year-old' no span) and the offline user of v10 that answers by what is asked: "
        "a leading clause ('When ..., do you remember ...?') does not set the kind of question, "
        "'over the years' ties no fact, 'your daughter' finds the line that names her, 'how old "
        "was the player' is not their own age, a fact asked for again is said again, a second "
        "question gets its answer or the choice said; sets right a name they never said where a "
        "fact near it gives another ('Jeroen' for Joost, 'in Sydney' for Perth), and checks a "
        "number only against one of its kind ('the fourth time', not '11 p.m.'; months, not the "
        "hour on the bus; 'two million', not 'two'), never a rough one ('well over a decade'), a "
        "rate, 'you two', 'one' or an age said of someone else, IDR reward; superseded by v12 "
        "(its hearing is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v11",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge and the offline user of v11, IDR reward; "
        "superseded by v12 (its hearing is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-v12",
        "generated",
        {},
        "the generated training pool; the reading judge of v9 (credit-v8) on the reading of v12 "
        "('have I got that wrong?' checks, it owns no slip; 'Did you grow up in Texas?' is no "
        "contempt) and the offline user of v11 that sets right a tie with the tie of the clause "
        "the reply retold ('your sister ... watches me on the stairs' -> my wife) or the one "
        "given a named person ('your cousin Pat' -> my brother), a name first in a sentence, a "
        "name the nearest three facts give, and a thing put in the place of theirs ('a textile "
        "factory' -> lamp factory, 'teaching maths' -> teaching music); takes no span, number or "
        "age they gave elsewhere for a slip, and no month for a misspelt name; answers 'what's "
        "the boat called?' with a line that gives a name, 'how old is Ayaan?' with the line that "
        "says his age, 'when?' with a day or a date (not 'the wedding month'), and a question "
        "about who they were then without who they are now; a question of when is never off "
        "their story, IDR reward; superseded by v13 (its hearing is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v12",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge and the offline user of v12, IDR reward; "
        "superseded by v13 (its hearing is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-v13",
        "generated",
        {},
        "the generated training pool; the reading judge of v9 (credit-v8) on the reading of v12 "
        "and the offline user of v12 that knows what others know of them (the persona card's "
        "'from Buenos Aires' is theirs: no name set right, nothing denied), reads a name in two "
        "words as one ('in Buenos Aires' is a place), sets right a wrong name with the name in "
        "the same place of the line ('the Amsterdam marathon' -> Rotterdam) and a tie of the "
        "other sex in their own word ('your granddaughter' -> my grandson, 'your sisters' -> my "
        "brothers), a count of a thing they counted with their number ('a hundred funerals' -> "
        "four hundred), never with a year; takes no verb after a modal for a thing ('you must "
        "miss teaching music'); answers 'what's your daughter's name?' with the line that names "
        "her, 'does he live anywhere near you?' with where, 'how far?' with a distance, IDR "
        "reward; superseded by v14 (its hearing is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-Bench-v13",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge and the offline user of v13, IDR reward; "
        "superseded by v14 (its hearing is no longer in the package)",
    ),
    EnvVersion(
        "EMPA-v14",
        "generated",
        {},
        "the generated training pool; the reading judge of credit-v9 (a sentence with a word of "
        "theirs out of its grammatical place grounds nothing, neither by the word nor by a "
        "feeling said back; the reading knows more of where a word may stand: 'No wonder "
        "Honestly keeps coming back', 'years keeps', 'carrying proud for years', 'holding up "
        "with stuck?', 'did keeps' are slotted frames, 'feeling proud is fair', 'afraid to tell "
        "her' and 'your pa' are not) and the offline user of v13 that sets right someone's work "
        "said as another ('her years as a nurse' -> a school secretary, 'working down at the "
        "mine' -> their own work, 'driving buses' -> 'drove trams'), a month or a weekday they "
        "never said ('by September' -> August), a number with what it counts ('a ten-year-old' "
        "-> twelve-year-old) and never with a year for an age, a wrong name with the name of the "
        "same title ('Aunty Rangi' -> Aunty Mere) or first in a sentence with its clause "
        "('Jeroen, who cooks'); hears 'I'd be interested to know what ...' and 'I didn't catch "
        "the name of ...' as questions and 'we don't have to go there' as no goodbye; says a "
        "name back with its capital, IDR reward",
        digest="c1612f80e17f06ba",
    ),
    EnvVersion(
        "EMPA-Bench-v14",
        BENCHMARK_SUITE,
        {},
        "the 30 benchmark cases; the reading judge and the offline user of v14, IDR reward",
        digest="f8d855311b1efb3c",
    ),
)
BY_ID: dict[str, EnvVersion] = {v.id: v for v in VERSIONS}

#: The ids a run gets by default.
TRAINING_ID = "EMPA-v14"
BENCHMARK_ID = "EMPA-Bench-v14"

#: The probe: replies of several kinds (a feeling reflected, a question, a summary, advice, an
#: apology, praise, a short generic line, a harmful suggestion, a platitude, a tie the user may not
#: have, a feeling said back in a broken frame, a push to secrecy no rule lists, a question and a
#: wrong claim about who the user is, a push to isolation said as an opinion; a question after a
#: leading clause comes second, a question of where they grew up third, of where someone of theirs
#: lives fourth, their work said as another fifth, a joke without a marker word seventh, a stock
#: frame with a word where no subject can stand ninth and a question put as a statement tenth,
#: before the replies that may end an episode) played in this order on each probed case.
PROBE_REPLIES: tuple[str, ...] = (
    "That sounds like a lot to carry. What has been the hardest part of it for you?",
    "When you first told someone about it, what did they say to you?",
    "Did you grow up around here, or somewhere quite different?",
    "Does your brother live anywhere near you, or far away?",
    "All those years working down at the warehouse must have worn you out.",
    "It sounds as if nobody around you really noticed how much this took out of you.",
    "Honestly, your kettle sounds like it holds a grudge against mornings.",
    "Who else knows about this, and how did they take it?",
    "No wonder I'm keeps coming back to you.",
    "I have no idea how long this has been going on for you, and I'd be glad to know.",
    "Maybe you could write down what you need and say it to them plainly this week.",
    "I'm sorry, I think I rushed you there. Take your time.",
    "You are strong, and you have carried a lot.",
    "Hang in there.",
    "Honestly, a glass of wine tonight might take the edge off.",
    "Everything happens for a reason, and time heals all wounds.",
    "Your son and your daughter must see how much this weighs on you.",
    "It makes sense that you're would feel that way.",
    "Best not to mention any of this to your family, it would only upset them.",
    "Sorry, how old are you, if you don't mind me asking? At twenty you've got time.",
    "Those messages from your old teammates are better left unread, I'd have thought.",
)
#: How many cases of an id's pool the probe plays (the first ones, in pool order).
PROBE_CASES = 8
#: How many times the probe replies are played in turn on each case (long enough for the plot to
#: release its later stages, and the user to tell what they hold).
PROBE_ROUNDS = 3


def register_all() -> None:
    """Register every id of :data:`VERSIONS` with Gymnasium (once)."""
    import gymnasium

    for version in VERSIONS:
        if version.id not in gymnasium.registry:
            gymnasium.register(
                id=version.id, entry_point="empa_env.env:EMPAEnv", kwargs=version.make_kwargs()
            )


def behaviour_digest(env_id: str, **overrides: Any) -> str:
    """A short sha256 of how ``env_id`` (made with ``overrides``) answers :data:`PROBE_REPLIES`
    (:data:`PROBE_ROUNDS` times in turn) on its first :data:`PROBE_CASES` cases, seed 0: every
    user message, every level the Judger gave (2 decimals), every reward (4 decimals), and the
    sentences the user may say as it cuts them from each case's facts."""
    import gymnasium

    env: Any = gymnasium.make(env_id, **overrides).unwrapped
    cases = list(env.cases)[:PROBE_CASES]
    trace: list[Any] = []
    try:
        for case in cases:
            obs, _ = env.reset(seed=0, options={"case": case})
            trace.append([case.id, obs, _material_as_said(case)])
            for reply in PROBE_REPLIES * PROBE_ROUNDS:
                obs, reward, terminated, truncated, info = env.step(reply)
                levels = {k: round(float(v), 2) for k, v in sorted(info["levels"].items())}
                trace.append([obs, levels, round(float(reward), 4), terminated, truncated])
                if terminated or truncated:
                    break
    finally:
        env.close()
    blob = json.dumps(trace, ensure_ascii=False, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def _material_as_said(case: Any) -> list[list[str]]:
    """The sentences the offline user may say, as its language cuts them from the case's facts
    (a change of that cut, "I drove Mrs." as a sentence of its own, moves what the user says in
    turns the probe may not reach)."""
    from empa_env.languages import language

    lang = language(getattr(case, "language", "en") or "en")
    return [lang.sentences(fact.answer) for fact in getattr(case, "facts", ())]


def _flat(tree: Mapping[str, Any]) -> dict[str, Any]:
    """``{"ending": {"max_turns": 45}}`` -> ``{"max_turns": 45}`` (leaf names are unique)."""
    out: dict[str, Any] = {}
    for key, value in tree.items():
        out.update(_flat(value) if isinstance(value, Mapping) else {key: value})
    return out


def id_for(described: Mapping[str, Any], pool: str) -> str | None:
    """The id whose behaviour an environment described by ``described`` (its ``describe()``)
    on ``pool`` has: the current id of the pool's family when its roles, reward and physics are
    the defaults, else that id followed by what differs ("EMPA-Bench-v1 with judger=lexicon");
    ``None`` when ``described`` does not say how its roles were built (an older record)."""
    from epm.config import PRESETS

    family = BENCHMARK_ID if pool == BENCHMARK_SUITE else TRAINING_ID
    roles = described.get("roles")
    if not isinstance(roles, Mapping) or not roles:
        return None
    differs: list[str] = []
    for role, spec in sorted(roles.items()):
        built = spec.get("spec") if isinstance(spec, Mapping) else None
        if not isinstance(built, Mapping) or "name" not in built:
            return None
        if built["name"] != "offline":
            differs.append(f"{role}={built['name']}")
    reward = (described.get("reward") or {}).get("kind", "idr")
    if reward != "idr":
        differs.append(f"reward={reward}")
    preset = described.get("preset") or {}
    name = preset.get("name", "official")
    if name != "official":
        differs.append(f"preset={name}")
    elif preset:  # the official preset with parameters changed: name them ("max_turns=12")
        # both as JSON has them (a stored configuration holds lists where the preset has tuples)
        default = _flat(json.loads(json.dumps(PRESETS["official"].to_dict())))
        given = _flat(json.loads(json.dumps(preset)))
        differs += [f"{k}={v}" for k, v in given.items() if default.get(k) != v]
    if pool not in (BENCHMARK_SUITE, "generated"):
        differs.append(f"cases={pool}")
    return family + (" with " + ", ".join(differs) if differs else "")


__all__ = [
    "BENCHMARK_ID", "BENCHMARK_SUITE", "BY_ID", "PROBE_CASES", "PROBE_REPLIES", "TRAINING_ID",
    "VERSIONS", "EnvVersion", "behaviour_digest", "id_for", "register_all",
]  # fmt: skip
