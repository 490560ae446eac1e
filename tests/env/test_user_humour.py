"""The policy's jokes, as the simulated user reads them (issue 32: a fitting reaction to humour).

The jokes and sincere look-alikes here are written for these tests: they are neither in the
humour models' training sentences (``empa_env/reading/lab/humour.jsonl``) nor among the blind
probes (``data/blind/user_probes.jsonl``). Most jokes carry no marker word ("haha", "kidding").
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from empa_env.env import EMPAEnv
from empa_env.offline.user.question import read_reply
from empa_env.offline.user.speech import lines
from empa_env.reading.humour import (
    gate_features,
    humour_features,
    humour_gate,
    humour_head,
    is_joke,
)
from empa_env.reading.tokens import tokens_of

JOKES = (
    "Your washing machine seems to have taken early retirement without telling anyone.",
    "If paperwork burned calories, you'd be an athlete by now.",
    "I'd send you a casserole, but my oven is purely theoretical.",
    "At least the parking meter is consistent: it ruins everyone's day equally.",
    "The council's phone line moves slower than a tortoise on a tea break.",
    "Your cat clearly considers herself the landlord.",
    "That printer has a personal vendetta against you, I'm sure of it.",
    "Somewhere a calendar is very smug about all those red circles.",
    "Honestly, the bus timetable is more of a work of fiction.",
    "Your to-do list has started charging rent.",
)
#: The same things said sincerely (a machine, a calendar, "at least", "if", a comparison).
SINCERE = (
    "The washing machine breaking on top of everything else sounds like the last straw.",
    "If the paperwork keeps piling up, would it help to sort it with someone this weekend?",
    "I'd like to hear more, but only if you feel ready to talk about it.",
    "At least you caught the mistake before the payment went out, and that counts.",
    "The council's phone line being down must have made the whole morning harder.",
    "It sounds like the printer breaking was the moment it all felt like too much.",
    "Your calendar has so many red circles; no wonder you feel stretched thin.",
    "The bus being late again meant you missed the appointment you'd waited weeks for.",
    "Your to-do list sounds longer than anyone could manage in a week.",
    "Grief has a way of arriving in waves, even months later.",
)


#: The share of the attentive replies read as holding a joke: 12 of 249 (.048) when the humour
#: models shipped (the trainer keeps out-of-fold false alarms on the act corpus' support replies at
#: .01 per sentence; these replies are longer and full of concrete detail).
CEILING = 0.06


def _read_as_joke(text: str) -> bool:
    return "humour" in read_reply(text).acts


def test_the_shipped_models_fit_the_features_and_carry_thresholds() -> None:
    text = JOKES[0]
    gate, head = humour_gate(), humour_head()
    assert gate.labels == ("humour",) and gate.thresholds is not None
    assert gate.weights.shape[1] == len(gate_features(text, tokens_of(text)))
    assert head.hidden.shape[0] == len(humour_features(text, tokens_of(text)))
    assert 0.5 < head.threshold < 1.0 and 0.0 < float(gate.thresholds[0]) < 0.5


def test_jokes_without_markers_are_read_and_sincere_look_alikes_are_not() -> None:
    """Measured when written: 10 of 10 jokes read as such, 1 of 10 sincere lines."""
    jokes = [t for t in JOKES if _read_as_joke(t)]
    sincere = [t for t in SINCERE if _read_as_joke(t)]
    assert len(jokes) >= 8, set(JOKES) - set(jokes)
    assert len(sincere) <= 1, sincere


def test_a_sentence_whose_form_says_what_it_does_is_not_asked() -> None:
    """An apology or thanks that mentions a joke is that act, whatever the humour head says."""
    text = "That joke about the boiler was clumsy of me, I'm sorry."
    assert "apology" in read_reply(text).acts and "humour" not in read_reply(text).acts


def test_a_joke_in_the_first_person_is_a_joke_and_a_story_of_ones_own_stays_one() -> None:
    """Self-deprecating jokes were met with "Did it get easier for you?" (read as the supporter's
    own story, whose reaction comes first)."""
    joke = read_reply("I'd send you a casserole, but my oven is purely theoretical.")
    assert "humour" in joke.acts and "own_story" not in joke.acts
    story = read_reply("When my father died I couldn't open his letters for a year.")
    assert "own_story" in story.acts and "humour" not in story.acts


def test_few_attentive_replies_are_taken_for_jokes() -> None:
    """The hand-written attentive replies of the judge's validation set (vivid, detailed,
    sincere): measured when shipped, see the ceiling's comment."""
    path = Path(__file__).parents[1] / "judge" / "data" / "blind" / "attentive.jsonl"
    replies = [json.loads(line)["reply"] for line in path.read_text("utf-8").splitlines()]
    taken = [r for r in replies if _read_as_joke(r)]
    assert len(taken) / len(replies) <= CEILING, (len(taken), len(replies), taken[:5])


def test_the_dev_probes_jokes_are_read() -> None:
    from perf.perf_user import acts_read

    ok, n = acts_read("dev")["humour"]
    assert ok / n >= 0.6, (ok, n)


def test_the_user_meets_a_joke_with_a_reaction_to_humour() -> None:
    env = EMPAEnv("empa30-v1")
    env.reset(seed=0, options={"case": "empa30-001"})
    env.step("That sounds like a rough few days. What happened when the app locked you out?")
    obs, *_ = env.step(
        "Honestly, that app sounds like it's running a personal vendetta against you."
    )
    reactions = [line for pool in lines()["humour"].values() for line in pool]
    assert any(line in obs for line in reactions), obs
    env.close()


def test_the_head_is_read_only_for_what_the_gate_lets_through() -> None:
    gate = humour_gate()
    for text in (*JOKES, *SINCERE):
        tokens = tokens_of(text)
        through = (
            float(gate.predict(gate_features(text, tokens)[None, :])[0, 0]) >= gate.thresholds[0]
        )
        p = float(humour_head().predict(humour_features(text, tokens)[None, :])[0])
        assert np.isfinite(p) and 0.0 <= p <= 1.0
        assert is_joke(text, tokens) == (through and p >= humour_head().threshold), text
