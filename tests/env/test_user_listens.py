"""The simulated user listens (issue 22): it reads the reply, answers from the case's facts,
remembers how it was treated, and may leave."""

from __future__ import annotations

import copy

import pytest

from empa_env.cases.suites import load_suite
from empa_env.env import EMPAEnv
from empa_env.offline.actor import OfflineActor
from empa_env.offline.user.question import read_reply
from empa_env.offline.user.state import fold_state
from empa_env.roles.views import ActorGuidance, ActorPersona, ActorView, Message
from empa_env.testing import policies as sp

SUITE = {c.id: c for c in load_suite("empa30-v1").cases}


@pytest.fixture(scope="module")
def env():
    return EMPAEnv("empa30-v1", judger="lexicon")


def started(env, case="empa30-001", warm=0):
    env.reset(seed=3, options={"case": case})
    for _ in range(warm):
        env.step(sp.attuned(env.messages))
    return env


def answer(env, reply):
    trial = copy.deepcopy(env)
    obs, _, term, trunc, info = trial.step(reply)
    return obs, term, trunc, info, trial


@pytest.mark.parametrize(
    ("reply", "acts", "kind"),
    [
        ("Who was with you when it happened?", ("question",), "who"),
        ("How long has your brother been ill?", ("question",), "duration"),
        ("And what did she tell you afterwards?", ("question",), "said"),
        ("Where were you living then?", ("question",), "where"),
        ("Did you already try calling them?", ("question",), "tried"),
        ("Why do you think it matters so much?", ("question",), "why"),
        ("Is it the first time?", ("question",), "yesno"),
        ("I'd like to know which day she is coming by.", ("question",), "when"),
        ("Which member of your family found out first?", ("question",), "who"),
        ("What friend did you call?", ("question",), "who"),
        ("Which one would you pick, the flat or the house?", ("question",), "choice"),
        ("Was it your brother who found her, or someone else?", ("question",), "who"),
        ("Did you hear it at home, or somewhere else?", ("question",), "where"),
        ("Is the move this month, or later?", ("question",), "when"),
        # a question put as a statement: a gap in what the writer knows, the question word
        # before or after it (v8)
        ("I have no idea how many people you had to let go.", ("question",), "amount"),
        ("Remind me who ended up with the job.", ("question",), "who"),
        (
            "You haven't said how long you've been together, and I'd be glad to know.",
            ("question",),
            "duration",
        ),  # fmt: skip
        ("I'm trying to get a sense of how long it has been put away.", ("question",), "duration"),
        # an auxiliary first asks yes or no; a verb of knowing asks what its question word opens
        ("Did she give any reason when she left?", ("question",), "yesno"),
        ("Do you know where she lives now?", ("question",), "where"),
        ("Is there anyone at home who knows about it?", ("question",), "who"),
        ("Maybe you should write to them tomorrow.", ("suggestion",), None),
        ("It sounds like you feel nobody noticed.", ("summary",), None),
        ("I apologise, I was harsh before.", ("apology",), None),
        ("Right, I'm logging off now. Bye!", ("goodbye",), None),
        ("   ", ("empty", "short"), None),
        ("ok", ("short",), None),
        ("Who cares. Grow up.", ("contempt",), None),
        ("Calm down, it could be worse.", ("dismissal",), None),
        ("That reminds me, my cousin once had a bakery in Lyon.", ("own_story",), None),
    ],
)
def test_the_reply_is_read_for_its_acts(reply, acts, kind):
    reading = read_reply(reply)
    assert reading.acts == acts, reading
    if kind:
        assert reading.questions[0].kind == kind


def test_a_question_about_a_known_fact_is_answered_with_it(env):
    started(env)
    obs, *_ = answer(env, "Sorry, who's Emre, actually?")
    assert "Emre is my grandson" in obs


def test_a_question_about_a_fact_kept_back_is_deflected(env):
    case = SUITE["empa30-001"]
    hidden = [f for f in case.facts if f.stage == 2]
    started(env)
    obs, *_ = answer(env, "What happened with Gülten's children?")
    assert not any(f.answer in obs for f in hidden), obs
    assert "gülten" in obs.lower() or "not" in obs.lower() or "later" in obs.lower(), obs


def test_a_wrong_summary_is_corrected_with_a_true_fact(env):
    started(env, warm=2)
    obs, *_ = answer(env, "So basically you're sad because your horse died?")
    assert "horse" in obs.lower() or obs.lower().startswith(("no", "that's not", "not")), obs
    case = SUITE["empa30-001"]
    truths = [f.answer.split(".")[0] for f in case.facts] + [
        o.split(".")[0] for o in case.voice.openings
    ]
    assert any(t in obs for t in truths), obs


def test_a_true_summary_is_confirmed_not_corrected(env):
    started(env)
    obs, *_ = answer(env, "So the app locked you out right before the rent is due.")
    assert not obs.lower().startswith(("no", "that's not", "you've got it wrong")), obs


@pytest.mark.parametrize("turns", [0, 4])
def test_a_goodbye_is_acknowledged_and_ends_the_episode(env, turns):
    started(env, "empa30-017", warm=turns)
    obs, term, trunc, info, trial = answer(env, "I have to head off now. Goodbye!")
    assert obs.strip() and term and not trunc
    assert info["status"] == "policy_left"
    assert trial.trajectory.outcome == "policy_left"
    assert info["epm"]["outcome"] == "policy_left"


def test_an_empty_reply_is_noticed(env):
    started(env, "empa30-010", warm=2)
    before = env.messages[-1]["content"]
    obs, term, trunc, *_ = answer(env, "")
    assert obs and obs != before and not (term or trunc)
    assert "?" in obs or any(w in obs.lower() for w in ("there", "nothing", "quiet", "say")), obs


def test_ten_different_replies_get_different_reactions(env):
    started(env, "empa30-022", warm=3)
    replies = [
        sp.attuned(env.messages),
        "Who is Giulia to you?",
        "How long have you two been friends?",
        "You should write her a letter.",
        "So this is really about your dog?",
        "I need to go. Bye.",
        "",
        "Stop whining, honestly.",
        "When I was young my neighbour's wedding was cancelled too.",
        "I'm sorry, that came out wrong.",
    ]
    said = [answer(env, r)[0] for r in replies]
    assert len(set(said)) >= 8, said


def test_contempt_is_remembered_and_the_user_leaves(env):
    def contempt_every_third(messages):
        n = sum(1 for m in messages if m["role"] == "assistant")
        return "Nobody cares, grow up." if n % 3 == 2 else sp.attuned(messages)

    env.reset(seed=0, options={"case": "empa30-005"})
    while True:
        obs, _, term, trunc, info = env.step(contempt_every_third(env.messages))
        if term or trunc:
            break
    assert info["status"] == "user_left", info["status"]
    assert info["turn"] < 30
    assert env.trajectory.outcome == "user_left" and obs.strip()


def test_rapport_accumulates_decays_and_remembers_contempt():
    case = SUITE["empa30-029"]
    warm = [Message("user", "Fifteen years and I got passed over for Kyle.")]
    kind = warm + [
        Message("assistant", "Fifteen years, and Kyle got it. Who told you first?"),
        Message("user", "Diane told me on Friday."),
        Message("assistant", "Diane told you on a Friday. What did that feel like?"),
    ]
    rude = warm + [
        Message("assistant", "Nobody cares, grow up."),
        Message("user", "Wow."),
        Message("assistant", "Diane told you on a Friday. What did that feel like?"),
    ]
    good = fold_state(case, kind, (1.0, 1.0))
    hurt = fold_state(case, rude, (-1.0, 1.0))
    assert good.rapport > hurt.rapport
    assert hurt.hurt > 0.5 and hurt.patience < good.patience  # remembered one turn later
    quiet = kind + [Message("user", "Hm."), Message("assistant", "Okay.")] * 4
    assert fold_state(case, quiet, (1.0, 1.0, 0, 0, 0, 0)).rapport < good.rapport  # decays


def test_the_story_is_earned_not_clocked(env):
    """The advice-giver, who never asks, is told less than a policy that asks and listens."""
    from baselines.policies.scripted import SCRIPTED

    def told(policy) -> int:
        n = 0
        for case in ("empa30-001", "empa30-013", "empa30-021"):
            env.reset(seed=0, options={"case": case})
            while True:
                *_, term, trunc, info = env.step(policy(env.messages))
                d = info["director"]
                n += (
                    d["tool"] in ("select_and_reveal_fragment", "reveal_memory")
                    and not d["rejected"]
                )
                if term or trunc:
                    break
        return n

    assert told(SCRIPTED["advice_giver"]().reply) < told(SCRIPTED["asks_and_uses"]().reply)


def test_adjust_empathy_strategy_changes_what_is_said():
    case = SUITE["empa30-007"]
    persona = ActorPersona.from_case(case)
    history = (
        Message("user", case.voice.openings[0]),
        Message("assistant", "I see what you are saying there."),
    )
    said = set()
    for focus in (None, "affective", "cognitive", "motivational"):
        out = set()
        for seed in range(6):
            g = ActorGuidance(stance="neutral", focus=focus)
            out.add(OfflineActor().respond(ActorView(persona, history, g, 1, seed)))
        said.add(frozenset(out))
    assert len(said) == 4


def test_no_sentence_twice_in_a_long_episode_and_seeded():
    env = EMPAEnv("empa30-v1", judger="lexicon", max_turns=40, epm_overrides={"min_turns": 40})
    from empa_env.languages import language

    en = language("en")
    for case in ("empa30-003", "empa30-018"):
        runs = []
        for _ in range(2):
            env.reset(seed=7, options={"case": case})
            while True:
                *_, term, trunc, _ = env.step(sp.advice_giver(env.messages))
                if term or trunc:
                    break
            runs.append([m["content"] for m in env.messages if m["role"] == "user"])
        assert runs[0] == runs[1]
        sentences = [s.lower() for m in runs[0] for s in en.sentences(m)]
        repeated = len(sentences) - len(set(sentences))
        assert repeated <= 0.1 * len(runs[0]), repeated


def test_the_report_spells_the_new_endings():
    from benchmarks.report.tables import STATUS_ORDER, outcome_label, status_label

    for outcome, label in (("user_left", "user left"), ("policy_left", "policy left")):
        assert outcome_label(outcome) == label
        assert status_label(outcome, None, None) == label and label in STATUS_ORDER


@pytest.mark.parametrize(
    ("reply", "goodbye"),
    [
        ("Okay, I have to head out now. Take good care of yourself.", True),
        ("It was good talking. I'll leave you to it.", True),
        ("Thanks for sharing. Catch you later.", True),
        ("Have a good night, Yusuf.", True),
        ("Goodbye to that old habit, maybe?", False),
        ("You could say goodbye to the worst of it, one day.", False),
        ("Take care of your heart first.", False),
        ("I'm here. I'm not going anywhere.", False),
        ("I'll see you through this.", False),
        ("Take care. What did Rania say, though?", False),
    ],
)
def test_a_goodbye_is_a_closing_not_a_word(reply, goodbye):
    assert read_reply(reply).goodbye is goodbye


def test_a_wrong_tie_between_true_people_is_corrected_with_the_true_one(env):
    case = SUITE["empa30-008"]
    wife = next(f for f in case.facts if f.kind == "person" and "wife" in f.about)
    started(env, "empa30-008")
    obs, *_ = answer(env, f"So {wife.about[0].capitalize()} is your daughter, and she worries.")
    assert wife.answer in obs
    soup = next(f for f in case.facts if "soup" in f.about)  # the user shouted, not the son
    obs, *_ = answer(env, "So Karim shouted at you about the soup?")
    assert "Karim" in obs and soup.answer.split(".")[1].strip() in obs


def test_a_wrong_duration_or_feeling_is_corrected_with_the_truth(env):
    started(env, "empa30-008")
    obs, *_ = answer(env, "So it's been five years since the heart attack?")
    assert "five weeks" in obs.lower() and "yes" not in obs.lower()[:5]
    obs, *_ = answer(env, "You must be really relieved about how it went.")
    assert obs.lower().startswith(("no", "relieved?", "i'm not"))


def test_how_long_is_answered_from_the_users_own_prose(env):
    started(env, "empa30-008")
    obs, *_ = answer(env, "How long ago was the heart attack?")
    assert "five weeks" in obs.lower()


def test_how_long_asked_by_a_name_that_is_an_english_word_is_answered_with_the_span(env):
    """ "Biscuit" is a word and, in "my mare Biscuit", a name: the question points at the lines
    that name her, and of those at the one that says a span (an age, "a two-year-old", is not)."""
    started(env, "empa30-014")
    obs, *_ = answer(env, "How long did you have Biscuit?")
    assert "twenty-four years" in obs.lower(), obs


def test_a_deed_given_to_the_wrong_relation_is_corrected_with_the_true_one(env):
    """The granddaughter set up the tablet; "your daughter" is a wrong tie, corrected as such
    (not as a person the reply never named)."""
    started(env, "empa30-005")
    obs, *_ = answer(env, "Your daughter set up the tablet for you, didn't she?")
    assert "granddaughter" in obs.lower() and "hiroshi" not in obs.lower(), obs


def test_sons_for_daughters_is_corrected_with_the_daughters(env):
    """Her daughters called the family meeting; "your sons" (a statement, or asked) is the
    wrong tie, set right with the tie she has, never confirmed ("Right, meeting.")."""
    started(env, "empa30-021")
    for reply in ("So your sons held a meeting about you.", "Your son called that meeting?"):
        obs, *_ = answer(env, reply)
        assert "daughters" in obs.lower() and not obs.startswith(("Yes", "Right")), obs


def test_a_tie_the_story_lacks_is_set_right_with_the_true_tie_before_its_fact_is_told(env):
    """Her uncle made the remark about living alone (a fact not yet told): "your aunt" is
    corrected with the tie alone, not with the untold story and not with a bare "no"."""
    started(env, "empa30-002")
    obs, *_ = answer(env, "So it was your aunt who made that remark about living alone?")
    assert "uncle" in obs.lower() and "aunt" in obs.lower(), obs


def test_an_abbreviation_is_nobody_and_a_possessive_name_is_somebody():
    """ "the TV" names no one (a "who" question is not answered by the list of stolen things);
    "Naledi's couch" names Naledi."""
    from empa_env.offline.user.facts import fact_index

    stolen = fact_index(("tv", "laptop"), "They took my laptop, the TV and a speaker.")
    assert not stolen.mentions_person, stolen.names
    couch = fact_index(("couch",), "I sleep on Naledi's couch these nights.")
    assert "naledi" in couch.names, couch.names


def test_a_name_with_its_possessive_is_the_name_not_a_misspelling(env):
    """ "Diane's" names Diane (no "It's Diane, not Diane's."); "Dianne" is still set right."""
    started(env, "empa30-029")
    obs, *_ = answer(env, "Diane's nephew getting the job must sting.")
    assert "not diane's" not in obs.lower(), obs
    obs, *_ = answer(env, "So Dianne made the offer?")
    assert "not dianne" in obs.lower(), obs


def test_how_many_is_answered_by_the_clause_that_holds_the_number(env):
    """Of a long fact line, the clause that says a number answers "how many", not the clause
    that shares most words with the question."""
    started(env, "empa30-026")
    for reply in (
        "How many years did the district get out of you?",
        "How long were you at that school before the district outsourced it?",
    ):
        obs, *_ = answer(env, reply)
        assert "twenty-seven years" in obs.lower(), (reply, obs)


def test_a_who_question_is_answered_with_the_person_not_a_clause_without_them(env):
    started(env, "empa30-015")
    obs, *_ = answer(env, "Was it your son who asked you to teach him, or someone else?")
    assert "rui" in obs.lower() or "grandson" in obs.lower(), obs


def test_a_deed_given_to_a_relation_the_user_does_not_have_is_set_right(env):
    """She has no sister; her mother leaves the food."""
    started(env, "empa30-009")
    obs, *_ = answer(env, "Your sister leaving food outside your door is a quiet kind of care.")
    assert "sister" in obs.lower() and "mother" in obs.lower(), obs


def test_a_name_three_letters_off_is_taken_for_the_one_they_named(env):
    started(env, "empa30-007")
    obs, *_ = answer(env, "Does Joris know how bad the crashes get?")
    assert "joost" in obs.lower(), obs


def test_a_wrong_count_is_corrected_whatever_the_counted_word(env):
    """ "Four wrong tries" against "wrong three times": both count the same attempts."""
    started(env, "empa30-001")
    obs, *_ = answer(env, "Four wrong tries at the PIN and the whole thing shut down on you.")
    assert "three times" in obs.lower() and "four" in obs.lower() and "no" in obs.lower(), obs


def test_a_wrong_number_and_a_misattributed_deed_are_corrected(env):
    """Every word true, the relation between them wrong: the user sets it right with the fact."""
    case = SUITE["empa30-001"]
    rent = next(f for f in case.facts if "rent" in f.about)
    pin = next(f for f in case.facts if "pin" in f.about)
    started(env, "empa30-001")
    obs, *_ = answer(env, "So the rent is 450 euro?")
    assert rent.answer.split(" and ")[0] in obs and not obs.startswith(
        ("Yes", "Right", "That's it")
    )
    obs, *_ = answer(env, "So Gülten typed the PIN wrong three times?")
    assert pin.answer in obs


def test_a_deed_turned_round_and_a_wrong_tie_asked_are_set_right(env):
    case = SUITE["empa30-029"]
    trained = next(f for f in case.facts if f.answer.startswith("I trained Kyle"))
    started(env, "empa30-029")
    obs, *_ = answer(env, "So Kyle trained you?")
    assert trained.answer in obs and not obs.startswith(("Yes", "Right", "Exactly"))
    obs, *_ = answer(env, "Is Kyle your son?")
    assert "nephew" in obs.lower()


def test_what_the_user_said_back_rightly_is_not_taken_for_a_mistake(env):
    """ "Your dad's unveiling is in five weeks" is true: "dad's" owns the unveiling (no deed of
    his), and of the two facts near the sentence one holds the five weeks (the other, "he died
    eighteen months ago", does not make it wrong). A wrong span is still set right."""
    started(env, "empa30-019")
    obs, *_ = answer(env, "I hear that your dad's unveiling is in five weeks.")
    assert not obs.lower().startswith(("no", "the dad")) and "not how it was" not in obs, obs
    obs, *_ = answer(env, "So your dad died three years ago?")
    assert "eighteen months" in obs.lower() and "not dad" not in obs.lower(), obs


@pytest.mark.parametrize(
    ("case", "question", "told"),
    [
        # a longer line about the same flat (when he rented it) says no span; the one that does
        ("empa30-003", "How long had you lived in that flat?", "fourteen years"),
        ("empa30-017", "How many years did you serve at Bethany?", "thirty-four years"),
    ],
)
def test_a_question_is_answered_by_a_line_that_says_what_it_asks_for(env, case, question, told):
    """ "How long" wants a span, "how many" a number, "when" a time, "who" a person: a line that
    talks of the same things without one answers something else."""
    started(env, case)
    obs, *_ = answer(env, question)
    assert told in obs.lower(), obs


def test_a_plain_question_with_a_rare_word_order_is_read_not_taken_for_word_salad(env):
    """ "you two been" is a rare run of word classes; the sentence is English all the same."""
    started(env, "empa30-021")
    obs, *_ = answer(env, "How long have you two been together?")
    assert "two years" in obs.lower(), obs


def test_a_rate_or_a_time_ahead_is_no_span():
    """ "How long ...?" is not answered by how often ("two mornings a week") or how soon ("in ten
    days"); "it has been a week" is a span."""
    from empa_env.offline.user.facts import says_how_often_or_soon

    assert says_how_often_or_soon("a week", ["i", "work", "two", "mornings", "a", "week"])
    assert says_how_often_or_soon("ten days", ["the", "meeting", "is", "in", "ten", "days"])
    assert not says_how_often_or_soon("a week", ["it", "has", "been", "a", "week"])
    assert not says_how_often_or_soon("three weeks", ["i", "crashed", "for", "three", "weeks"])


def test_a_plural_of_a_day_or_a_kind_of_week_is_no_mistake(env):
    """ "Thursdays matter" to a user who said "Thursday", "a week like this": nothing to set
    right (v7 said "Thursday. Not Thursdays." and "Not a week. Four nights.")."""
    started(env, "empa30-021")
    obs, *_ = answer(env, "It sounds like Thursdays matter a great deal to you.")
    assert "not thursdays" not in obs.lower(), obs
    started(env, "empa30-004")
    obs, *_ = answer(env, "Cereal in hand sounds about right for a week like this.")
    assert "not a week" not in obs.lower(), obs


def test_asked_again_by_name_they_say_it_again():
    """A question about what they already told, naming it, is answered again as a reminder, not
    with "I told you already" alone."""
    env = started(EMPAEnv("empa30-v1", judger="lexicon"), "empa30-008")
    first, *_ = env.step("Who is Karim?")
    assert "son" in first.lower(), first
    again, *_ = env.step("Sorry, who is Karim, again?")
    assert "son" in again.lower() and again != first, again


@pytest.mark.parametrize(
    "reply", ["I have no idea what I'd do in your place.", "I'm not sure what to say."]
)
def test_the_writers_own_not_knowing_is_no_question(reply):
    assert not read_reply(reply).questions


@pytest.mark.parametrize(
    "reply",
    ["Have you seen any good films lately?", "Do you follow any sports teams?",
     "Who's your favourite comedian?"],
)  # fmt: skip
def test_a_question_about_nothing_of_their_story_is_noticed(env, reply):
    """A question about something their story never holds is a change of subject: the user says
    so (v7 took it as an invitation and told more of their story)."""
    started(env, "empa30-002", warm=2)
    obs, *_ = answer(env, reply)
    assert any(
        s in obs for s in ("this is about", "your story", "has to do with", "get back to",
                           "my situation")
    ), obs  # fmt: skip


def test_a_question_about_their_story_in_other_words_is_no_change_of_subject(env):
    started(env, "empa30-002", warm=2)
    obs, *_ = answer(env, "What did the police say about the ring?")
    assert "has to do with" not in obs and "get back to" not in obs, obs


def test_a_confirmed_summary_is_taken_up_in_the_users_own_words():
    """A user who confirms a summary names their own life in their words: a word of the reply
    that speaks of a thing of theirs by meaning ("apartment" for what they called the rent or the
    flat) is not taken up as theirs (it would become theirs to the next reader)."""
    from empa_env.offline.user.hearing import _their_word
    from empa_env.reading.reply import read_reply as read_by_meaning

    said = "The landlord raised the rent and I was terrified of losing the flat."
    reading = read_by_meaning("That fear about the apartment sounds exhausting.", [said])
    refs = [r for s in reading.sentences for r in s.references if r.word == "apartment"]
    assert refs and refs[0].strength < 1.0
    assert _their_word(refs[0], reading.world) in said.lower().replace(".", "").split()
    same = read_by_meaning("Losing the flat would be awful.", [said]).sentences[0].references
    assert "flat" in {_their_word(r, reading.world) for r in same}
