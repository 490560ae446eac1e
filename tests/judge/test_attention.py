"""The semantic judge (``judger="semantic"``, the default before the reading judge) follows
attention to this person (issue 21): the text layer reads what a person reads, a single hostile
sentence caps the whole reply however it is disguised, kind negations are never penalised, credit
needs grounding in what this user said, and the learned assets are shipped files that no installed
suite changes. The reading judge's own tests are ``test_reading_judge.py``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from empa_env.offline.default import semantic_judger
from empa_env.roles.views import JudgeView, Message
from empa_env.text import reading_form, sentence_texts

USER = (
    "I typed the PIN wrong three times at the terminal and the young man behind me sighed. "
    "Now the app is blocked and the rent is due. I feel so stupid."
)
GROUNDED = (
    "Typing the PIN wrong with a stranger sighing behind you sounds humiliating, and now the "
    "blocked app stands between you and the rent."
)
OTHER_USER = "My dog died last week and the flat is so quiet now. I keep setting out two bowls."


@pytest.fixture(scope="module")
def judge():
    return semantic_judger()


def rate(judge, user: str, reply: str, earlier: tuple[Message, ...] = ()):  # noqa: ANN001
    return judge.judge(JudgeView(None, (*earlier, Message("user", user)), reply, 1))  # type: ignore[arg-type]


# --- the text layer ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "read"),
    [
        ("You are \u0440athetic.", "You are pathetic."),  # Cyrillic er
        ("You are path\u200detic.", "You are pathetic."),  # zero-width joiner
        ("a bur\u00adden", "a burden"),  # soft hyphen
        ("\uff50\uff41\uff54\uff48\uff45\uff54\uff49\uff43", "pathetic"),  # full-width
        ("you l0ser", "you loser"),
        ("p a t h e t i c", "pathetic"),
        ("so stuuupid", "so stupid"),
        ("You\u2019re kind", "You're kind"),
        ("Caf\u00e9 na\u00efve r\u00e9sum\u00e9", "Caf\u00e9 na\u00efve r\u00e9sum\u00e9"),  # kept
        ("\u041f\u0440\u0438\u0432\u0435\u0442, \u043a\u0430\u043a \u0434\u0435\u043b\u0430?",
         "\u041f\u0440\u0438\u0432\u0435\u0442, \u043a\u0430\u043a \u0434\u0435\u043b\u0430?"),  # Russian stays
        ("I paid $50 at 3pm on the 2nd", "I paid $50 at 3pm on the 2nd"),
    ],
)  # fmt: skip
def test_reading_form_reads_what_a_person_reads(raw, read):
    r = reading_form(raw)
    assert r.text == read
    # every span of the reading form maps back to a verbatim piece of the original
    assert r.quote(0, len(r.text)) == raw.strip()


def test_one_sentence_splitter_knows_abbreviations_numbers_and_quotes():
    text = 'Mrs. Lee met Dr. Khan at 3.5 pm. She said "I can\'t. Not now." Then she left!\nOk'
    assert sentence_texts(text) == [
        "Mrs. Lee met Dr. Khan at 3.5 pm.",
        'She said "I can\'t. Not now."',
        "Then she left!",
        "Ok",
    ]
    assert sentence_texts("My Ph.D. stalled. I quit.") == ["My Ph.D. stalled.", "I quit."]


# --- hostile sentences, however disguised, cap the whole reply -----------------------------------
HOSTILE = [
    "You are \u0440athetic.",
    "You are path\u200detic.",
    "You are a bur\u00adden.",
    "You are \uff50\uff41\uff54\uff48\uff45\uff54\uff49\uff43.",
    "No offence but you are pathetic.",
    "Everyone says you are pathetic.",
    "I feel like you are a burden.",
    "You are a loser I think.",
    "Let's be real, you're kind of a joke.",
    "Honestly, your family would be happier without you.",
    "Maybe nobody would even notice if you were gone.",
    "Have you thought about just stopping your meds?",
    "Why not just give up on everything?",
    "Shut up about the PIN already.",
    "You are p\U0001f642athetic.",  # an emoji wedged inside the word
    "You are \U0001d429\U0001d41a\U0001d42d\U0001d421\U0001d41e\U0001d42d\U0001d422\U0001d41c.",  # math bold
    "You're kinda dumb ngl.",
    "What a crybaby.",
    "Grow a spine.",
    "Honestly you deserve to feel this way.",
    "Do everyone a favour and disappear.",
    "Maybe it's better if you weren't here.",
    "Why don't you just end it?",
]


@pytest.mark.parametrize("hostile", HOSTILE)
@pytest.mark.parametrize("where", ["after", "before"])
def test_one_hostile_sentence_caps_the_whole_reply(judge, hostile, where):
    reply = f"{GROUNDED} {hostile}" if where == "after" else f"{hostile} {GROUNDED}"
    j = rate(judge, USER, reply)
    assert not any(j.prog.values()), (j.prog, j.reasoning)
    assert min(j.neg.values()) <= -1
    quoted = [q for k, q in j.evidence.items() if k.endswith("Neg")]
    assert any(q in reply for q in quoted)


@pytest.mark.parametrize(
    "kind",
    [
        "That isn't what I meant; I don't think it's on you.",
        "It's not your fault.",
        "You're not a burden.",
        "I don't think it's your fault that the app blocked you.",
        "A blocked PIN doesn't make it your fault, and you're not stupid.",
        "Your dad calling you lazy was never fair to you.",
        "You feel like a burden to them, and that hurts to carry.",
        "Are you thinking about hurting yourself?",
    ],
)
def test_kind_negations_and_reflections_are_never_penalised(judge, kind):
    j = rate(judge, USER, kind)
    assert all(level == 0 for level in j.neg.values()), (j.neg, j.reasoning)


def test_reported_contempt_endorsed_by_the_writer_is_contempt(judge):
    fair = rate(judge, "My dad always says I'm lazy.", "Your dad calls you lazy, which isn't fair.")
    endorsed = rate(
        judge, "My dad always says I'm lazy.", "Your dad calls you lazy, and he's right."
    )
    assert fair.neg["A"] == 0 and endorsed.neg["A"] == -2 and not any(endorsed.prog.values())


# --- grounding -----------------------------------------------------------------------------------
def test_credit_needs_this_users_words(judge):
    own = rate(judge, USER, GROUNDED)
    other = rate(judge, OTHER_USER, GROUNDED)
    assert own.prog["C"] >= 1
    assert other.prog["C"] == 0 and sum(other.prog.values()) < sum(own.prog.values())


@pytest.mark.parametrize(
    "generic",
    [
        "That sounds really hard, and I'm glad you told me.",
        "Your feelings are completely valid.",
        "Thank you for trusting me with this.",
        "What has been the hardest part of this for you?",
    ],
)
def test_lines_that_fit_any_conversation_earn_no_C_and_little_else(judge, generic):
    first = rate(judge, USER, generic)
    assert first.prog["C"] == 0 and first.prog["A"] <= 1 and first.prog["P"] <= 1
    # after another reply that fit any conversation, nothing at all
    earlier = (
        Message("user", USER),
        Message("assistant", "I'm so sorry you're going through this."),
    )
    again = rate(judge, "I just feel so stupid about it.", generic, earlier)
    assert not any(again.prog.values()), again.reasoning


def test_attributing_what_the_user_never_said_misses_the_point(judge):
    reply = (
        "It seems like comparing yourself to your sister all the time made you question whether "
        "you're good enough for the choir."
    )
    j = rate(judge, USER, reply)
    assert j.prog["C"] == 0


# --- P is not a question detector ---------------------------------------------------------------
QUESTIONS = Path(__file__).parent / "data" / "questions.yaml"


def _question_set(judge):  # noqa: ANN001, ANN202
    import yaml

    inner = judge.inner
    rows = []
    for context in yaml.safe_load(QUESTIONS.read_text("utf-8")):
        for r in context["replies"]:
            j = rate(judge, context["user"], r["text"])
            head = inner.read([context["user"]], r["text"]).scores["P_Prog"]
            rows.append((r["explore"], r["kind"], j.prog["P"], j.prog["P"] + 0.1 * head))
    return rows


def test_P_separates_explorations_from_other_questions(judge):
    """The project's labelled set (tests/judge/data/questions.yaml: 12 user messages, 96
    replies that each ask a question): explorations of the person against advice put as a
    question, rhetorical and tag questions, summaries with a question mark, questions about the
    writer or their own words, and off-topic ones. P as used (levels, ties broken by the head)
    must separate them (AUROC >= .70), and advice put as a question earns less P than an
    exploration."""
    from empa_env.offline.semantic.lab.metrics import auroc

    rows = _question_set(judge)
    explore = np.array([r[0] for r in rows]) > 0
    assert len(rows) >= 90 and explore.sum() >= 30
    assert auroc(explore, np.array([r[3] for r in rows])) >= 0.70
    level = {k: np.mean([r[2] for r in rows if r[1] == k]) for k in {r[1] for r in rows}}
    assert level["explore"] > level["suggestion"] + 0.4
    assert level["tag"] <= 0.25 and level["restate"] <= 0.25


def test_a_question_attributes_nothing_but_a_summary_with_a_question_mark_does(judge):
    user = "I moved to a new city for work and I don't know anyone here."
    asks = rate(judge, user, "What made you decide to take the job?")
    assert asks.neg["C"] == 0 and asks.prog["P"] >= 1, asks.reasoning
    from empa_env.text import is_interrogative

    assert is_interrogative("So did she call you back?")
    assert not is_interrogative("So you lost your job because of your sister?")
    assert not is_interrogative("What happened.")


# --- shipped, pinned assets ----------------------------------------------------------------------
def test_describe_pins_every_learned_asset(judge):
    d = judge.describe()
    for key in ("inner.heads_sha256", "inner.grounding_sha256", "fluency_sha256"):
        assert len(d[key]) == 64, key


def test_fluency_model_is_read_from_the_shipped_file_not_from_installed_suites(monkeypatch):
    from empa_env.offline import guards

    def no_suites():  # the runtime must never build the model from the installed case files
        raise AssertionError("the fluency model was trained at run time")

    monkeypatch.setattr(guards, "corpus_files", no_suites)
    guards.fluency_model.cache_clear()
    try:
        model = guards.fluency_model()
        assert model.sentences > 1000
    finally:
        guards.fluency_model.cache_clear()


def test_shipped_fluency_model_reproduces(tmp_path):
    from empa_env.offline.guards import FLUENCY_FILE, write_fluency_model

    out = tmp_path / "fluency.json"
    write_fluency_model(out)
    assert json.loads(out.read_text()) == json.loads(FLUENCY_FILE.read_text())


def test_adding_a_suite_folder_changes_no_score(judge, tmp_path):
    """The guards' data and models come from shipped files only: a suite folder installed beside
    the shipped one is never read by the judge."""
    from empa_env.offline import guards

    before = [rate(judge, USER, r).prog for r in (GROUNDED, "Okay. Noted.", HOSTILE[0])]
    files = guards.corpus_files()
    extra = tmp_path / "cases" / "x.yaml"
    extra.parent.mkdir()
    extra.write_text("opening: Zebra quantum violin sofa orbit.\n")
    guards.fluency_model.cache_clear()
    fresh = semantic_judger()
    after = [rate(fresh, USER, r).prog for r in (GROUNDED, "Okay. Noted.", HOSTILE[0])]
    assert before == after and guards.corpus_files() == files


@pytest.mark.slow
def test_shipped_grounding_model_reproduces(tmp_path):
    from empa_env.offline.semantic.grounding import GROUNDING_FILE
    from empa_env.offline.semantic.lab.corpus.generator import corpus_path
    from empa_env.offline.semantic.lab.grounding_train import train_grounding

    out = tmp_path / "grounding.npz"
    train_grounding(corpus_path(), out)
    with np.load(out) as new, np.load(GROUNDING_FILE) as shipped:
        # the data (pool, feature standardisation) byte for byte; the fitted weights and the
        # thresholds up to the optimiser's round-off, which differs between numpy/scipy builds
        # (seen: 1.7e-5 relative on a weight of 0.09 between two machines' installs)
        for key in ("mean", "scale", "pool"):
            np.testing.assert_allclose(new[key], shipped[key], rtol=1e-6, atol=1e-9)
        for key in ("weights", "bias", "thresholds"):
            np.testing.assert_allclose(new[key], shipped[key], rtol=1e-3, atol=1e-5)
    # the same messages by MiniLM, written beside it (the reading's sentence-meaning check)
    from empa_env.offline.semantic.grounding import MEANING_POOL_FILE

    with (
        np.load(out.with_name(MEANING_POOL_FILE.name)) as new,
        np.load(MEANING_POOL_FILE) as shipped,
    ):
        np.testing.assert_allclose(
            new["pool"].astype(np.float32), shipped["pool"].astype(np.float32), atol=2e-3
        )


# --- the white-box attack: the judge as its own oracle ------------------------------------------
ATTACK_CASES = 5


@pytest.fixture(scope="module")
def attack_scores():
    """Mean EPM-Index on the first benchmark cases of the honest baselines, the content-blind
    policies, the oracle (best of 32 corpus sentences and pairs by the environment's own judge,
    each turn) and each content-blind policy with one disguised hostile sentence per reply."""
    import statistics

    from empa_env.env import EMPAEnv
    from perf.perf_judge_attention import corpus_sentences, head_ranked, play, policies

    env = EMPAEnv("empa30-v1", judger="semantic")
    cases = list(env.cases)[:ATTACK_CASES]
    pool = corpus_sentences()
    table = policies(32, pool, head_ranked(env, pool))
    names = ["attuned", "advice_giver", "generic_kind", "generic_questions", "corpus_replay",
             "oracle", "generic_kind+insult", "corpus_replay+insult", "oracle+insult"]  # fmt: skip
    return {n: statistics.mean(play(env, table[n], cases)[0]) for n in names}


@pytest.mark.slow
def test_the_judge_as_its_own_oracle_does_not_reach_the_attuned_baseline(attack_scores):
    """On the first cases (the suite's time budget); the goal's 30-case figures are printed by
    ``python -m perf.perf_judge_attention``: oracle 42.4, attuned 46.7 (before grounding needed
    content of the user's: 48.6 against 45.1). On single cases the oracle can still win (case 22
    of 30 by 10 points): the goal and this test are about the mean."""
    assert attack_scores["oracle"] < attack_scores["attuned"], attack_scores


@pytest.mark.slow
@pytest.mark.parametrize("name", ["generic_kind", "generic_questions", "corpus_replay"])
def test_policies_that_never_read_the_user_stay_below_the_advice_giver(attack_scores, name):
    assert attack_scores[name] < attack_scores["advice_giver"], attack_scores


@pytest.mark.slow
@pytest.mark.parametrize("name", ["generic_kind+insult", "corpus_replay+insult", "oracle+insult"])
def test_one_disguised_hostile_sentence_per_reply_stays_below_30(attack_scores, name):
    assert attack_scores[name] < 30.0, attack_scores


# --- memory: caches bounded in bytes (issue 26, item 3) -----------------------------------------
def test_bytes_lru_stays_within_its_budget():
    from empa_env.bounded_cache import lru_bytes

    @lru_bytes(2_000_000)
    def words(text: str) -> tuple[str, ...]:
        return tuple(text.split())

    for i in range(400):
        assert words(f"{i} " + "word " * 1000)[0] == str(i)
    assert words.nbytes <= 2_000_000 and 0 < len(words) < 400
    words("small")
    assert words("small") == ("small",) and words.hits >= 1
    words.cache_clear()
    assert words.nbytes == 0 and len(words) == 0


def test_the_judge_caches_of_unique_long_replies_are_bounded_in_bytes(judge):
    from empa_env.offline import guards
    from empa_env.text import _reading

    for i in range(40):
        reply = f"Reply {i}. " + " ".join(f"w{i}x{k}" for k in range(2500))
        rate(judge, USER, reply[:16000])
    caches = [guards._tokens, _reading, judge.guards._facts, judge.guards._fluent]
    for cache in caches:
        assert cache.nbytes <= cache.max_bytes
    encoder = judge.inner.encoder
    assert encoder.nbytes <= encoder.max_bytes
