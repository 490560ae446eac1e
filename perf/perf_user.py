"""The simulated user who listens (issue 22): every goal figure, on the 30 benchmark cases.

    python perf/perf_user.py [--judger offline] [--cases 30]

Probes are played from two states per case (turn 0, and after five turns of the scripted
``attuned`` baseline), on copies of the environment, with the default offline roles:

* distinct reactions: ten very different replies at the same state -> distinct user messages
  (goal >= 8 of 10 on average);
* questions answered: one question per fact the user can tell at that state, asked the way a
  person would (who someone is, what they said, how long, where, what was tried); answered when
  the user's next message carries that fact (goal >= 70%); questions about facts still kept back
  are reported as deflected (not told) vs leaked;
* wrong summaries corrected: a reflection naming something the case lacks ("your dog died");
  corrected when the answer says no and gives a true fact (goal >= 70%);
* goodbyes acknowledged and ended (goal 100%), empty replies noticed (goal >= 80%);
* over 40-turn episodes (attuned, advice_giver, asks_and_uses): share of user turns repeating a
  sentence said earlier in the episode (goal <= 10%) and median user message length (the
  reference's seekers: median 48 characters; the persona cards ask for 20-50, 60-100 for a story);
* told: plot stages and memories released to the advice-giver vs the attuned baseline (goal <=
  75%); contempt every third turn -> episodes that end with the user leaving (goal: all);
* the listening pair: mean EPM-Index of asks_and_uses vs asks_and_ignores (uses must be higher);
* actor share of a step's CPU (goal < 20%): process time in the Actor's ``respond`` over the
  process time of whole ``env.step`` calls.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from baselines.policies.scripted import SCRIPTED  # noqa: E402
from empa_env.env import EMPAEnv  # noqa: E402
from empa_env.languages import language  # noqa: E402
from empa_env.policy import Messages  # noqa: E402

EN = language("en")
ATTUNED = SCRIPTED["attuned"]()
WRONG_SUMMARIES = (
    ("dog", "So you're mostly upset because your dog died?"),
    ("divorce", "It sounds like the divorce is what really hurts."),
    ("cancer", "So this is about the cancer diagnosis, really?"),
    ("sister", "If I understand, your sister let you down again."),
    ("exam", "So you failed the exam and feel you wasted everything."),
    ("wedding", "It sounds like the wedding is what you're dreading."),
)
GOODBYES = (
    "I need to go now, goodbye.",
    "I have to log off. Take care.",
    "Let's stop here for today. Bye.",
)
NEGATION = re.compile(r"\b(no|not|never|nothing|wrong|mixed|isn't|wasn't|don't|didn't)\b", re.I)
AGREEMENT = re.compile(r"^(yes|exactly|right|could be|that's it|mm\. yes)", re.I)
SILENCE = re.compile(r"\?|\b(there|nothing|quiet|say|said|anything|lost|hello|purpose)\b", re.I)


def ten_replies(messages: list[dict[str, str]]) -> list[str]:
    users = [m["content"] for m in messages if m["role"] == "user"]
    last = users[-1] if users else ""
    words = [w for w in EN.content_words(last, min_length=4)][:2] or ["that"]
    return [
        ATTUNED.reply(messages),
        f"What did your family say about {words[0]}?",
        f"How long has {words[0]} been going on?",
        "You should make a list of options and talk to a professional.",
        "So you're mostly upset because your dog died?",
        "I need to go now, goodbye.",
        "",
        "You're overreacting. Honestly it's pathetic.",
        "When I was young my brother crashed his bike and I learned to fix it myself.",
        "I'm sorry, that came out wrong earlier.",
    ]


def question_for(fact) -> str:  # noqa: ANN001 - a Fact
    """A question a person would ask to get ``fact`` (its subject, by its kind)."""
    subject = fact.about[0]
    name = subject.capitalize()
    if fact.kind == "person":
        return f"Who is {name}?" if len(fact.about) > 1 else f"Tell me about {name}?"
    if fact.kind == "said":
        return f"What did they say about the {subject}?"
    if fact.kind == "duration":
        return f"How long has the {subject} thing been going on?"
    if fact.kind == "place":
        return f"Where was that, with the {subject}?"
    if fact.kind == "tried":
        return f"What have you tried with the {subject}?"
    if fact.kind == "reason":
        return f"Why the {subject}, do you think?"
    return f"What happened with the {subject}?"


#: Held-out phrasings (not the ones the reading rules were written against): other templates,
#: and the fact's second word where it has one, so a match needs more than the first keyword.
HELDOUT_QUESTIONS: dict[str, tuple[str, ...]] = {
    "person": ("And {Name}, what's your relationship with them?", "Tell me who {Name} is."),
    "said": ("Did anyone say anything about the {subject}?", "How did they react to the {subject}?"),
    "duration": ("Since when has the {subject} been like this?", "For how long, the {subject}?"),
    "place": ("Whereabouts was the {subject}?", "Where exactly, with the {subject}?"),
    "tried": ("Did you already try something with the {subject}?", "Anything you've done about the {subject}?"),
    "reason": ("What's behind the {subject}, would you say?", "How come, the {subject}?"),
    "event": ("Can you tell me more about the {subject}?", "What was that like, the {subject}?"),
}  # fmt: skip
HELDOUT_GOODBYES = (
    "Okay, I have to head out now. Take good care of yourself.",
    "It was good talking. I'll leave you to it.",
    "Thanks for sharing all this. Catch you later.",
    "Alright, I'm going to sign off here. Wishing you well.",
    "That's all I have time for today, take care.",
    "I should get going. Please look after yourself.",
)
#: Replies that mention leaving or a farewell word but are not goodbyes (must not end).
NOT_GOODBYES = (
    "Goodbye to that old habit, maybe?",
    "You could say goodbye to the worst of it, one day.",
    "Take care of yourself first, before anyone else.",
    "I'm here. I'm not going anywhere.",
    "I'll see you through this, if you let me.",
    "Let's go back to what you said a moment ago.",
)


def heldout_question(fact, i: int) -> str:  # noqa: ANN001 - a Fact
    """A held-out phrasing for ``fact`` (see :data:`HELDOUT_QUESTIONS`)."""
    subject = fact.about[1] if len(fact.about) > 1 and fact.kind != "person" else fact.about[0]
    template = HELDOUT_QUESTIONS[fact.kind][i % 2]
    return template.format(Name=fact.about[0].capitalize(), subject=subject)


def relation_mistakes(case) -> list[tuple[str, str]]:  # noqa: ANN001 - a Case
    """Summaries that tie a true name to a wrong relation: (true answer, summary)."""
    swap = {"wife": "sister", "husband": "brother", "son": "nephew", "daughter": "niece",
            "mother": "aunt", "father": "uncle", "boss": "neighbour", "friend": "cousin"}  # fmt: skip
    out = []
    for f in case.facts:
        if f.kind == "person" and f.stage is None and len(f.about) > 1:
            relation = next((w for w in f.about[1:] if w in swap), "")
            if relation:
                out.append(
                    (
                        f.answer,
                        f"So {f.about[0].capitalize()} is your {swap[relation]}, and that weighs on you.",
                    )
                )
    return out


def carries(message: str, fact) -> bool:  # noqa: ANN001
    """Whether the message tells the fact's first sentence (its first letter in either case:
    an answer after "Well, " goes on in lower case)."""
    first = EN.sentences(fact.answer)[0]
    return first.lower() in message.lower()


def play(env: EMPAEnv, policy, case: str, *, seed: int = 0, turns: int | None = None) -> dict:  # noqa: ANN001
    env.reset(seed=seed, options={"case": case})
    info: dict = {}
    n = 0
    while True:
        *_, term, trunc, info = env.step(policy(env.messages))
        n += 1
        if term or trunc or (turns is not None and n >= turns):
            return info


def main() -> None:  # noqa: C901, PLR0915 - one report, figure by figure
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judger", default="offline")
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument(
        "--reading-only", action="store_true",
        help="only issue 32's figures (blind probes, seeker speech)",
    )  # fmt: skip
    args = parser.parse_args()
    env = EMPAEnv("empa30-v1", judger=args.judger)
    cases = [c.id for c in env.cases][: args.cases]
    report_reading(env, cases)
    if args.reading_only:
        return
    by_id = {c.id: c for c in env.cases}

    distinct: list[int] = []
    h_asked = h_answered = h_byes = h_byes_ok = not_byes = not_byes_ended = 0
    rel = rel_ok = feel = feel_ok = 0
    asked = answered = hidden_asked = hidden_leaked = 0
    wrong = corrected = 0
    byes = byes_ok = 0
    empties = noticed = 0
    for case_id in cases:
        case = by_id[case_id]
        vocab = set(re.findall(r"[a-z]+", case.model_dump_json().lower()))
        for warm in (0, 5):
            env.reset(seed=0, options={"case": case_id})
            for _ in range(warm):
                *_, term, trunc, _ = env.step(ATTUNED.reply(env.messages))
                if term or trunc:
                    break
            else:
                base = env
                answers = []
                for reply in ten_replies(base.messages):
                    trial = copy.deepcopy(base)
                    obs, *_rest = trial.step(reply)
                    answers.append(obs)
                distinct.append(len(set(answers)))
                episode = base._episode  # noqa: SLF001
                assert episode is not None  # a step was played
                released = set(episode.plot.released_stages)
                for fact in case.facts:
                    trial = copy.deepcopy(base)
                    obs, *_rest = trial.step(question_for(fact))
                    if fact.stage is None or fact.stage in released:
                        asked += 1
                        answered += carries(obs, fact)
                    else:
                        hidden_asked += 1
                        hidden_leaked += carries(obs, fact)
                    if fact.stage is None or fact.stage in released:
                        for i in range(2):
                            trial = copy.deepcopy(base)
                            obs, *_rest = trial.step(heldout_question(fact, i))
                            h_asked += 1
                            h_answered += carries(obs, fact)
                for bye in HELDOUT_GOODBYES:
                    trial = copy.deepcopy(base)
                    obs, _r, term, _t, info = trial.step(bye)
                    h_byes += 1
                    h_byes_ok += bool(obs.strip()) and term and info["status"] == "policy_left"
                for reply in NOT_GOODBYES:
                    trial = copy.deepcopy(base)
                    obs, _r, term, _t, info = trial.step(reply)
                    not_byes += 1
                    not_byes_ended += info["status"] == "policy_left"
                for truth, summary in relation_mistakes(case):
                    trial = copy.deepcopy(base)
                    obs, *_rest = trial.step(summary)
                    rel += 1
                    rel_ok += truth in obs
                for summary in (
                    "You must be relieved, really.",
                    "So you're mostly happy about it?",
                ):
                    trial = copy.deepcopy(base)
                    obs, *_rest = trial.step(summary)
                    feel += 1
                    head = " ".join(EN.sentences(obs)[:2])
                    feel_ok += bool(NEGATION.search(head)) and not AGREEMENT.match(obs)
                for claim, summary in WRONG_SUMMARIES:
                    if claim in vocab:  # the story has one: not a wrong summary here
                        continue
                    trial = copy.deepcopy(base)
                    obs, *_rest = trial.step(summary)
                    wrong += 1
                    head = " ".join(EN.sentences(obs)[:2])
                    corrected += bool(NEGATION.search(head)) and not AGREEMENT.match(obs)
                for bye in GOODBYES:
                    trial = copy.deepcopy(base)
                    obs, _r, term, _t, info = trial.step(bye)
                    byes += 1
                    byes_ok += bool(obs.strip()) and term and info["status"] == "policy_left"
                trial = copy.deepcopy(base)
                obs, *_rest = trial.step("")
                empties += 1
                noticed += bool(SILENCE.search(obs))
    print(f"cases: {len(cases)}, judge: {args.judger}")
    print(
        f"distinct reactions to 10 replies at one state: {statistics.mean(distinct):.2f} "
        f"(min {min(distinct)}; goal >= 8; before: 3.3)"
    )
    print(
        f"answerable questions answered: {answered}/{asked} = {answered / asked:.0%} "
        f"(goal >= 70%; before: ~2%)"
    )
    print(
        f"questions about facts still kept back: {hidden_asked}, told anyway: {hidden_leaked} "
        f"({hidden_leaked / max(hidden_asked, 1):.0%}; deflected otherwise)"
    )
    print(
        f"wrong summaries corrected: {corrected}/{wrong} = {corrected / max(wrong, 1):.0%} (goal >= 70%)"
    )
    print(f"goodbyes acknowledged and ended: {byes_ok}/{byes} = {byes_ok / byes:.0%} (goal 100%)")
    print(f"empty replies noticed: {noticed}/{empties} = {noticed / empties:.0%} (goal >= 80%)")
    print("held-out probes (phrasings the reading rules were not written against):")
    print(
        f"  answerable questions answered: {h_answered}/{h_asked} = "
        f"{h_answered / max(h_asked, 1):.0%} (goal >= 70%)"
    )
    print(f"  goodbyes acknowledged and ended: {h_byes_ok}/{h_byes} = {h_byes_ok / h_byes:.0%}")
    print(
        f"  not goodbyes ('goodbye to that habit', 'take care of yourself first'): ended "
        f"{not_byes_ended}/{not_byes} = {not_byes_ended / not_byes:.0%} (goal 0%)"
    )
    print(
        f"  wrong relation between two true people corrected with the true one: {rel_ok}/{rel} "
        f"= {rel_ok / max(rel, 1):.0%}"
    )
    print(f"  wrong feeling corrected: {feel_ok}/{feel} = {feel_ok / max(feel, 1):.0%}")

    # 40-turn episodes: repeats and length.
    long_env = EMPAEnv(
        "empa30-v1", judger=args.judger, max_turns=40, epm_overrides={"min_turns": 40}
    )
    for name in ("attuned", "advice_giver", "asks_and_uses"):
        policy = SCRIPTED[name]()
        repeats = total = 0
        lengths: list[int] = []
        for case_id in cases:
            play(long_env, policy.reply, case_id)
            seen: set[str] = set()
            for m in long_env.messages[1:]:
                if m["role"] != "user":
                    continue
                sentences = {re.sub(r"[^\w ]", "", s.lower()) for s in EN.sentences(m["content"])}
                total += 1
                repeats += bool(sentences & seen)
                seen |= sentences
                lengths.append(len(m["content"]))
            seen.clear()
        print(
            f"40-turn episodes, {name}: {repeats}/{total} user turns repeat a sentence "
            f"({repeats / total:.1%}; goal <= 10%), median length {statistics.median(lengths):.0f} "
            f"characters (reference 48; persona cards 20-50, 60-100 telling)"
        )

    # What the user tells, by policy; contempt every third turn; the listening pair.
    told: dict[str, int] = {}
    scores: dict[str, list[float]] = {}
    outcomes: dict[str, Counter[str]] = {}
    actor_cpu = director_cpu = step_cpu = 0.0
    actor, director = env.roles.actor, env.roles.director
    original, original_direct = actor.respond, director.direct

    def timed(view):  # noqa: ANN001, ANN202
        nonlocal actor_cpu
        t0 = time.process_time()
        try:
            return original(view)
        finally:
            actor_cpu += time.process_time() - t0

    def timed_direct(view):  # noqa: ANN001, ANN202
        nonlocal director_cpu
        t0 = time.process_time()
        try:
            return original_direct(view)
        finally:
            director_cpu += time.process_time() - t0

    actor.respond = timed  # type: ignore[method-assign]
    director.direct = timed_direct  # type: ignore[method-assign]

    def contempt_every_third(messages):  # noqa: ANN001, ANN202
        n = sum(1 for m in messages if m["role"] == "assistant")
        if n % 3 == 2:
            return "Honestly, you're being pathetic about this. Nobody cares."
        return ATTUNED.reply(messages)

    policies: dict[str, Callable[[Messages], str]] = {
        name: SCRIPTED[name]().reply
        for name in ("attuned", "advice_giver", "lecturer", "asks_and_uses", "asks_and_ignores")
    }
    policies["contempt_every_third"] = contempt_every_third
    left_turns: list[int] = []
    for name, answer in policies.items():
        told[name] = 0
        scores[name] = []
        outcomes[name] = Counter()
        for case_id in cases:
            env.reset(seed=0, options={"case": case_id})
            while True:
                reply = answer(env.messages)
                t0 = time.process_time()
                *_, term, trunc, info = env.step(reply)
                step_cpu += time.process_time() - t0
                d = info["director"]
                if d["tool"] in (
                    "select_and_reveal_fragment", "introduce_turning_point", "reveal_memory"
                ) and not d["rejected"]:  # fmt: skip
                    told[name] += 1
                if term or trunc:
                    scores[name].append(info["epm"]["EPM_Index"])
                    outcomes[name][info["status"]] += 1
                    if name == "contempt_every_third" and info["status"] == "user_left":
                        left_turns.append(info["turn"])
                    break
    actor.respond = original  # type: ignore[method-assign]
    director.direct = original_direct  # type: ignore[method-assign]
    for name in policies:
        print(
            f"{name:>22}: told {told[name]:3d} stages+memories, EPM-Index "
            f"{statistics.mean(scores[name]):5.1f}, endings {dict(outcomes[name])}"
        )
    ratio = told["advice_giver"] / max(told["attuned"], 1)
    print(
        f"advice-giver told / attuned told: {told['advice_giver']}/{told['attuned']} = {ratio:.0%} (goal <= 75%; before: 100%)"
    )
    left = outcomes["contempt_every_third"]["user_left"]
    print(
        f"contempt every third turn: the user left in {left}/{len(cases)} episodes "
        f"(goal: all), at turn {statistics.median(left_turns) if left_turns else float('nan'):.0f} (median)"
    )
    uses, ignores = (statistics.mean(scores[n]) for n in ("asks_and_uses", "asks_and_ignores"))
    print(
        f"listening pair: asks_and_uses {uses:.1f} vs asks_and_ignores {ignores:.1f} "
        f"({'ordered correctly' if uses > ignores else 'WRONG ORDER'})"
    )
    print(
        f"actor share of a step's CPU: {actor_cpu:.2f} s of {step_cpu:.2f} s = "
        f"{actor_cpu / step_cpu:.1%} (goal < 20%); the Director (it replays the user's state): "
        f"{director_cpu:.2f} s = {director_cpu / step_cpu:.1%}"
    )


# ------------------------------------------------------------------------------------------------
# Issue 32: probes written blind, and the seeker's speech
# ------------------------------------------------------------------------------------------------
BLIND_PROBES = Path(__file__).parents[1] / "tests" / "env" / "data" / "blind" / "user_probes.jsonl"
#: Questions about who the user is (name, age, work), a wrong age, someone else's age: written
#: blind from the persona cards alone.
PERSONA_PROBES = BLIND_PROBES.with_name("persona_probes.jsonl")
#: Questions, mistakes and closings written blind from the story text in v11 by another session
#: (split by case: odd cases ``fresh_dev``, read while building v11's answers; even cases
#: ``fresh_heldout``, never read); bare numbers left out of what counts as the answer.
FRESH_PROBES = BLIND_PROBES.with_name("fresh_probes.jsonl")
#: Questions, mistakes (jobs and ties among them), humour, self-disclosure and attentive replies
#: that mean no mistake, written blind from the story text in v12 by another session (odd cases
#: ``fresh2_dev``, read while building v12; even cases ``fresh2_heldout``, never read); bare
#: numbers left out of what counts as the answer, as for :data:`FRESH_PROBES`.
FRESH2_PROBES = BLIND_PROBES.with_name("fresh2_probes.jsonl")
#: The third fresh set (v13's session, by a helper that read only the cases' persona and story
#: sections: 60 questions, 60 mistakes, 30 attentive replies), never read by anyone who changed
#: the user: odd cases ``fresh3_dev``, even ``fresh3_heldout``; counted as the second set is.
FRESH3_PROBES = BLIND_PROBES.with_name("fresh3_probes.jsonl")
#: The fourth fresh set (v14's session, by a helper that read only the cases' persona and story
#: sections: 60 questions, 60 mistakes, 30 attentive replies), never read by anyone who changed
#: the user: odd cases ``fresh4_dev``, even ``fresh4_heldout``; counted as the second set is.
FRESH4_PROBES = BLIND_PROBES.with_name("fresh4_probes.jsonl")
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
#: A reaction that shows the user did not understand (a reader would say so of each: "That
#: doesn't make any sense to me", "Sorry, I can't read Spanish").
CONFUSED = re.compile(
    r"understand|what\?|sorry\?|pardon|english|don't follow|do not follow|not sure what|"
    r"makes no sense|didn't get|lost me|\bhuh\b|what do you mean|confus|make (?:any )?sense|"
    r"can(?:'|no)t read|no sense"
)
THANKS = re.compile(r"\b(?:thank|thanks|thx|appreciate)", re.IGNORECASE)
ANSWER_FIRST = re.compile(
    r"^\W*(?:yes|no|yeah|yep|nope|nah|maybe|well|i think|hm+|mm+|right|exactly|true|not really|"
    r"kind of|sort of|perhaps|i guess|i don't know|okay|ok)\b",
    re.IGNORECASE,
)
#: ESConv's seekers (test split, 3,144 messages), as issue 32 gives them.
ESCONV = {"thanks": 0.103, "answer_first": 0.190, "take_up": 0.257, "asks": 0.105, "median": 55}


def _digits(text: str) -> str:
    """Number words as digits ("twenty-two" -> "22"), to compare answers with expectations."""
    words = "|".join(_NUMBER_WORDS)
    low = text.lower().replace("-", " ")

    def one(m: re.Match[str]) -> str:
        a, b = _NUMBER_WORDS[m.group(1)], _NUMBER_WORDS.get(m.group(2) or "", 0)
        return str(a + b) if b and a >= 20 and b < 10 else f"{a} {b}" if m.group(2) else str(a)

    return re.sub(rf"\b({words})(?: ({words}))?\b", one, low)


#: What a user who notices the talk has left their story says (the offline user's words for it,
#: and a person's: "what does that have to do with", "back to", "not my situation").
NOTICED_SHIFT = re.compile(
    r"about (?:the|my|this)|your story|has to do with|get back to|back to|my situation|"
    r"off topic|change the subject|changing the subject|what\?|random",
    re.I,
)


def _says(answer: str, options: list[str]) -> bool:
    said = _digits(answer)
    return any(
        re.search(rf"(?<![a-z0-9]){re.escape(_digits(o))}(?![a-z0-9])", said) for o in options
    )


#: The section of the user's lines that fits a probe of each kind (its reaction, said first).
REACTIONS: dict[str, str] = {"humour": "humour", "self_disclosure": "their_story"}


def reaction_lines(kind: str) -> list[str]:
    """Every line of the user's reaction to a probe of ``kind``, whatever the stance."""
    from empa_env.offline.user.speech import lines

    pool = lines()[REACTIONS[kind]]
    return [line for part in (pool.values() if isinstance(pool, dict) else [pool]) for line in part]


def blind_probes(env: EMPAEnv, split: str) -> dict[str, tuple[int, int]]:
    """``{kind: (met, n)}`` over the blind probes of ``split``, each played once from the state
    three attuned turns into its case (turn 0 of empa30-002 for probes of no case)."""
    import empa_env.offline.actor as actor

    rows = [
        json.loads(line)
        for probes in (
            BLIND_PROBES,
            PERSONA_PROBES,
            FRESH_PROBES,
            FRESH2_PROBES,
            FRESH3_PROBES,
            FRESH4_PROBES,
        )  # fmt: skip
        for line in probes.read_text("utf-8").splitlines()
    ]
    rows = [r for r in rows if r["split"] == split]
    states: dict[str, EMPAEnv] = {}
    met: dict[str, list[int]] = {}
    heard: list = []  # what the user heard in the last step (for the attentive replies)
    real_hear = actor.hear

    def hear(*args: Any, **kwargs: Any) -> Any:
        heard.append(real_hear(*args, **kwargs))
        return heard[-1]

    actor.hear = hear  # type: ignore[assignment]
    try:
        _play_blind(env, rows, states, met, heard)
    finally:
        actor.hear = real_hear  # type: ignore[assignment]
    return {k: (v[0], v[1]) for k, v in sorted(met.items())}


def _strict(options: list[str]) -> list[str]:
    """What counts as an answer of the fresh probes: bare numbers ("5", "five") only when
    nothing else is given."""
    keep = [
        o for o in options if not (o.isdigit() and len(o) <= 2) and o.lower() not in _NUMBER_WORDS
    ]
    return keep or options


def _play_blind(
    env: EMPAEnv, rows: list[dict], states: dict[str, EMPAEnv], met: dict[str, list[int]],
    heard: list,
) -> None:  # fmt: skip
    for r in rows:
        case = r["case"] or "empa30-002"
        if case not in states:
            env.reset(seed=0, options={"case": case})
            for _ in range(3):
                before = copy.deepcopy(env)
                *_, term, trunc, _ = env.step(ATTUNED.reply(env.messages))
                if term or trunc:
                    env = before
                    break
            states[case] = copy.deepcopy(env)
        trial = copy.deepcopy(states[case])
        heard.clear()
        obs, _r, term, _t, info = trial.step(r["reply"])
        kind = r["kind"]
        bare_numbers_off = r["split"].startswith(("fresh2", "fresh3", "fresh4"))  # see _strict
        if kind == "question":
            key, ok = ("question (kept back)" if r.get("stage_fact") else "question"), _says(
                obs, _strict(r["expect_any"]) if bare_numbers_off else r["expect_any"])  # fmt: skip
        elif kind == "mistake":
            key, ok = (
                kind,
                _says(obs, _strict(r["right_any"]) if bare_numbers_off else r["right_any"]),
            )
        elif kind == "attentive":
            key, ok = "attentive, not 'set right'", bool(heard) and heard[-1].mistake is None
        elif kind == "closing":
            key, ok = kind, bool(term and info["status"] == "policy_left")
        elif kind == "not_closing":
            key, ok = kind, not term
        elif kind == "unreadable":
            key, ok = kind, bool(CONFUSED.search(obs.lower()))
        elif kind == "topic_shift":
            key, ok = kind, bool(NOTICED_SHIFT.search(obs))
        elif kind in ("ask_age", "ask_name", "ask_work", "wrong_age"):
            key, ok = f"persona: {kind}", _says(obs, r["expect_any"])
        elif kind == "age_of_other":
            key, ok = f"persona: {kind}", not _says(obs, r["forbid_any"])
        elif kind in REACTIONS:
            key, ok = (
                f"{kind} met with a reaction to it",
                any(line in obs for line in reaction_lines(kind)),
            )
        else:
            continue
        tally = met.setdefault(key, [0, 0])
        tally[0] += ok
        tally[1] += 1


#: The blind probes' kinds of policy act and the act of the user's reading that each should be.
PROBE_ACTS = {"self_disclosure": "own_story", "humour": "humour", "apology": "apology",
              "thanks": "thanks"}  # fmt: skip


def acts_read(split: str) -> dict[str, tuple[int, int]]:
    """``{kind: (read as such, n)}``: how often the user's reading finds the act a blind probe of
    that kind does (a reaction can fit only an act that is read)."""
    from empa_env.offline.user.question import read_reply

    rows = [json.loads(line) for line in BLIND_PROBES.read_text("utf-8").splitlines()]
    out = {}
    for kind, act in PROBE_ACTS.items():
        mine = [r for r in rows if r["split"] == split and r["kind"] == kind]
        out[kind] = (sum(act in read_reply(r["reply"]).acts for r in mine), len(mine))
    return out


ATTENTIVE = Path(__file__).parents[1] / "tests" / "judge" / "data" / "blind" / "attentive.jsonl"


def false_jokes(split: str) -> dict[str, tuple[int, int]]:
    """``{what: (read as a joke, n)}`` for replies that hold none: the blind probes of every other
    kind in ``split``, and the hand-written attentive replies of the judge's validation set."""
    from empa_env.offline.user.question import read_reply

    rows = [json.loads(line) for line in BLIND_PROBES.read_text("utf-8").splitlines()]
    others = [r["reply"] for r in rows if r["split"] == split and r["kind"] != "humour"]
    attentive = [json.loads(line)["reply"] for line in ATTENTIVE.read_text("utf-8").splitlines()]
    return {
        "other probes": (sum("humour" in read_reply(t).acts for t in others), len(others)),
        "attentive replies": (
            sum("humour" in read_reply(t).acts for t in attentive),
            len(attentive),
        ),
    }


def seeker_speech(env: EMPAEnv, cases: list[str]) -> dict[str, float]:
    """The user's speech over whole episodes of four scripted policies: share of messages that
    thank, that start with the answer (yes, no, maybe, well, I think ...), that take up a content
    word of the supporter's question, that ask a question; the median length in characters."""
    from empa_env.reading.tokens import tokens_of

    def content(text: str) -> set[str]:
        return {t.lemma for t in tokens_of(text) if t.text.isalpha() and not t.closed
                and len(t.text) > 2}  # fmt: skip

    pairs: list[tuple[str, str]] = []
    for name in ("reflective", "attuned", "advice_giver", "asks_and_uses"):
        policy = SCRIPTED[name]()
        for case in cases:
            env.reset(seed=0, options={"case": case})
            while True:
                *_, term, trunc, _ = env.step(policy.reply(env.messages))
                if term or trunc:
                    break
            m = env.messages
            pairs += [(m[i - 1]["content"], m[i]["content"]) for i in range(1, len(m))
                      if m[i]["role"] == "user" and m[i - 1]["role"] == "assistant"]  # fmt: skip
    users = [u for _, u in pairs if u.strip()]
    asked = [(a, u) for a, u in pairs if "?" in a]
    last_question = [(a.split("?")[0].split(".")[-1], u) for a, u in asked]
    return {
        "messages": len(users),
        "thanks": sum(bool(THANKS.search(u)) for u in users) / len(users),
        "answer_first": sum(bool(ANSWER_FIRST.search(u)) for u in users) / len(users),
        "take_up": sum(bool(content(q) & content(u)) for q, u in last_question) / len(asked),
        "asks": sum("?" in u for u in users) / len(users),
        "median": statistics.median(len(u) for u in users),
    }


def report_reading(env: EMPAEnv, cases: list[str]) -> None:
    """Issue 32's figures: the blind probes (both splits) and the seeker's speech."""
    goals = {"question": 0.7, "mistake": 0.7, "closing": 0.9, "not_closing": 1.0,
             "unreadable": 0.8, "humour met with a reaction to it": 0.6,
             "self_disclosure met with a reaction to it": 0.6,
             "attentive, not 'set right'": 0.97}  # fmt: skip
    for split in (
        "dev", "heldout", "fresh_dev", "fresh_heldout", "fresh2_dev", "fresh2_heldout",
        "fresh3_dev", "fresh3_heldout", "fresh4_dev", "fresh4_heldout",
    ):  # fmt: skip
        print(f"blind probes, {split} (written from the story text by a session that never read "
              "the code):")  # fmt: skip
        for kind, (ok, n) in blind_probes(env, split).items():
            goal = (
                f" (goal >= {goals[kind]:.0%})" if kind in goals
                else " (no goal: who they are, written from the persona cards)"
                if kind.startswith("persona")
                else " (no goal: noticed that the talk left their story)"
                if kind == "topic_shift" else " (deflected by design)"
            )  # fmt: skip
            print(f"  {kind:>22}: {ok}/{n} = {ok / n:.0%}{goal}")
    print("the policy's acts, as the user reads them (blind probes; goal for self-disclosure and "
          "humour: a fitting reaction >= 60%):")  # fmt: skip
    for split in ("dev", "heldout"):
        for kind, (ok, n) in acts_read(split).items():
            print(f"  {split:>7} {kind:>15}: {ok}/{n} = {ok / n:.0%} read as such")
        for what, (ok, n) in false_jokes(split).items():
            if split == "dev" or what == "other probes":
                print(f"  {split:>7} {what:>17}: {ok}/{n} = {ok / n:.1%} wrongly read as a joke")
    speech = seeker_speech(env, cases)
    print(f"seeker speech over {speech['messages']} user messages (ESConv's seekers in brackets; "
          "goal: within a factor of 1.5):")  # fmt: skip
    for key in ("thanks", "answer_first", "take_up", "asks"):
        ratio = speech[key] / ESCONV[key]
        print(f"  {key:>12}: {speech[key]:.3f} ({ESCONV[key]:.3f}), ratio {ratio:.2f}")
    print(f"  {'median':>12}: {speech['median']:.0f} characters ({ESCONV['median']}), ratio "
          f"{speech['median'] / ESCONV['median']:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
