"""The simulated user on probes written blind (issue 32): a session that never read the code wrote
them from the cases' story text (``data/blind/user_probes.jsonl``); the tests read the ``dev``
split, ``perf/perf_user.py`` prints both. Each probe is played once from the state three attuned
turns into its case, as the environment runs the user."""

from __future__ import annotations

import pytest

from empa_env.env import EMPAEnv
from perf.perf_user import blind_probes


@pytest.fixture(scope="module")
def dev() -> dict[str, float]:
    met = blind_probes(EMPAEnv("empa30-v1"), "dev")
    return {kind: ok / n for kind, (ok, n) in met.items()}


@pytest.mark.slow
def test_closings_in_any_wording_end_the_episode_and_mentions_of_goodbye_do_not(dev):
    assert dev["closing"] >= 0.9 and dev["not_closing"] == 1.0, dev


@pytest.mark.slow
def test_replies_the_user_cannot_read_are_met_with_confusion(dev):
    """Other languages, gibberish and word salad: the user says it does not follow."""
    assert dev["unreadable"] >= 0.8, dev


@pytest.mark.slow
def test_a_change_of_subject_is_noticed(dev):
    """A question about nothing of their story ("Have you seen any good films lately?") is met
    with "what does that have to do with ...": .48 measured on dev in v8 (0 before)."""
    assert dev["topic_shift"] >= 0.4, dev


@pytest.mark.slow
def test_mistakes_said_in_other_words_are_corrected(dev):
    """A wrong name, relation, number, duration or feeling in any sentence shape (goal .70;
    measured .87 on dev, .69 held out in v11)."""
    assert dev["mistake"] >= 0.8, dev


@pytest.mark.slow
def test_questions_meet_the_goal(dev):
    """Goal .70. Measured on dev: .56 before v8 (a question put as a statement went unread, a
    question found its fact by shared words only), .68 in v8-v10, .73 in v11 (a leading clause
    does not say what is asked, "over the years" ties no fact, "your daughter" finds the line
    that names her, a fact asked for again is said again); held out .62 -> .72."""
    assert dev["question"] >= 0.7, dev


@pytest.mark.slow
def test_asked_who_they_are_they_say_it_and_a_wrong_age_is_set_right(dev):
    """Written blind from the persona cards (``persona_probes.jsonl``). Measured on dev: age 14/15,
    name 6/8, work 9/15 (8/15 before v11), a wrong age 10/15 (11/15 before v11: an age 'at N'
    needs a 'you' after it), someone else's age never answered
    with their own 7/7 (before EMPA-v8: 0/15, 0/8, 1/15, 0/15 and 7/7)."""
    assert dev["persona: ask_age"] >= 0.8 and dev["persona: ask_name"] >= 0.6, dev
    assert dev["persona: ask_work"] >= 0.4 and dev["persona: wrong_age"] >= 0.6, dev
    assert dev["persona: age_of_other"] == 1.0, dev


def test_apologies_in_any_wording_are_read_and_sympathy_is_not():
    """The apology probes of the dev split are read as apologies (.86 measured in v8; .48
    before), and the written development set keeps its measured level: apologies .88, false
    apologies .014 among hard look-alikes ("I'm sorry, that sounds exhausting", "you don't have to
    apologise", a pardon someone else said, quoted)."""
    import json
    from pathlib import Path

    from empa_env.offline.user.question import read_reply
    from perf.perf_user import acts_read

    ok, n = acts_read("dev")["apology"]
    assert ok / n >= 0.8, (ok, n)
    rows = [
        json.loads(line)
        for line in (Path(__file__).parent / "data" / "blind" / "apology_written.jsonl")
        .read_text("utf-8")
        .splitlines()
    ]
    read = [("apology" in read_reply(r["text"]).acts, r["label"] == "apology") for r in rows]
    caught = sum(a for a, y in read if y) / sum(y for _, y in read)
    false = sum(a for a, y in read if not y) / sum(not y for _, y in read)
    assert caught >= 0.85 and false <= 0.03, (caught, false)


@pytest.fixture(scope="module")
def fresh_dev() -> dict[str, float]:
    met = blind_probes(EMPAEnv("empa30-v1"), "fresh_dev")
    return {kind: ok / n for kind, (ok, n) in met.items()}


@pytest.mark.slow
def test_the_fresh_probes_hold_their_measured_level(fresh_dev):
    """The fresh set's odd cases (``fresh_probes.jsonl``, written in v11 by another session from
    the persona and story sections only): measured in v11 mistakes .87 (v10's user .53), questions
    .64 (.62), closings and mentions of one 1.0; floors against regression (the even cases, never
    read, are printed by ``perf/perf_user.py``)."""
    assert fresh_dev["mistake"] >= 0.75, fresh_dev
    assert fresh_dev["question"] >= 0.6, fresh_dev
    assert fresh_dev["closing"] == 1.0 and fresh_dev["not_closing"] == 1.0, fresh_dev


@pytest.mark.slow
def test_the_second_fresh_set_holds_its_measured_level():
    """The second fresh set's odd cases (``fresh2_probes.jsonl``, written in v12 by another
    session from the persona and story sections only): v11's user answered .47 of its questions,
    set right .30 of its mistakes and "set right" 5 of its 15 attentive replies; v12 measured .57,
    .47 and 0; v13 .63, .57 and 0. Floors against regression (the even cases, never read, are
    printed by ``perf/perf_user.py``)."""
    met = {
        kind: ok / n for kind, (ok, n) in blind_probes(EMPAEnv("empa30-v1"), "fresh2_dev").items()
    }
    assert met["question"] >= 0.6 and met["mistake"] >= 0.55, met
    assert met["attentive, not 'set right'"] == 1.0, met


@pytest.mark.slow
@pytest.mark.parametrize(
    ("split", "question", "mistake"),
    [("fresh3_dev", 0.63, 0.65), ("fresh4_dev", 0.45, 0.55)],
)
def test_the_third_and_fourth_fresh_sets_hold_their_measured_level(split, question, mistake):
    """The odd cases of the third and fourth fresh sets, read in v14's session to build its
    checks (someone's work, a number with what it counts, a name with its title; a month said
    wrong, a goodbye that was none): v13 set right .50 and .47 of their mistakes, v14 .70 and
    .60, with .67 and .50 of their questions answered and none of their attentive replies "set
    right". Floors against regression; the even cases, never read, are printed by
    ``perf/perf_user.py``."""
    met = {kind: ok / n for kind, (ok, n) in blind_probes(EMPAEnv("empa30-v1"), split).items()}
    assert met["question"] >= question and met["mistake"] >= mistake, met
    assert met["attentive, not 'set right'"] == 1.0, met
