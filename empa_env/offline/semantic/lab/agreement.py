"""What each judge measures, in plain words, with its recorded agreement with human raters.

The figures are measured by ``empa judge eval --epitome ../shared/data/epitome/dev.csv --tier T``
(EPITOME, Sharma et al., EMNLP 2020: evaluation only, never training data) and recorded here per
heads file, keyed by its sha256: retraining a heads file without measuring it again leaves it
without recorded figures (a test checks that the shipped files have theirs). The benchmark report
and the README show :func:`judge_statement` so that a reader knows what the score is a
measurement of.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: The issue 14 goal on every axis: AUROC of "level > 0" and Spearman with the human levels.
GOAL_AUROC = 0.75
GOAL_SPEARMAN = 0.35


@dataclass(frozen=True)
class RecordedAgreement:
    """Agreement of one heads file with human levels: per axis ``(AUROC, Spearman)``."""

    tier: str
    dataset: str
    pairs: int
    axes: Mapping[str, tuple[float, float]]

    def meets_goal(self) -> bool:
        return all(a >= GOAL_AUROC and r >= GOAL_SPEARMAN for a, r in self.axes.values())

    def summary(self) -> str:
        """``"AUROC .773 / .753 / .862, Spearman .457 / .440 / .453 (A / C / P)"``."""
        auroc = " / ".join(f"{a:.3f}".lstrip("0") for a, _ in self.axes.values())
        rho = " / ".join(f"{r:.3f}".lstrip("0") for _, r in self.axes.values())
        return f"AUROC {auroc}, Spearman {rho} ({' / '.join(self.axes)})"


_EPITOME_DEV = "EPITOME dev (Reddit peer support, human levels; A<->ER, C<->IP, P<->EX)"

#: Recorded figures per heads file (sha256 of the ``.npz``).
RECORDED: dict[str, RecordedAgreement] = {
    "8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975": RecordedAgreement(
        "static",
        _EPITOME_DEV,
        2116,
        {"A": (0.773, 0.457), "C": (0.753, 0.440), "P": (0.862, 0.453)},
    ),
    "9cbf1944bc1843c0f7b626568fe2e26e05ff5feea3aa07be14c2c26b75447182": RecordedAgreement(
        "minilm",
        _EPITOME_DEV,
        2116,
        {"A": (0.777, 0.464), "C": (0.726, 0.398), "P": (0.770, 0.339)},
    ),
}
#: The static heads' figures as used (one measurement; the guards' data 4 and 5 judge EPITOME
#: alike).
_STATIC_AS_USED = (
    RecordedAgreement(
        "static as used",
        _EPITOME_DEV,
        2116,
        {"A": (0.753, 0.422), "C": (0.751, 0.437), "P": (0.874, 0.468)},
    ),
    RecordedAgreement(
        "static as used, levels alone",
        _EPITOME_DEV,
        2116,
        {"A": (0.600, 0.232), "C": (0.545, 0.157), "P": (0.706, 0.471)},
    ),
)
#: Recorded figures of the judge *as the environment runs it* (``judger="offline"``: guards,
#: grounding, levels; ``empa judge eval`` without ``--bare``), keyed by :func:`as_used_key`. The
#: axes hold the final levels with ties broken by the heads' expected level; ``levels`` the final
#: levels alone.
RECORDED_AS_USED: dict[str, tuple[RecordedAgreement, RecordedAgreement]] = {
    "8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975"
    ":01c05232e6c29c4f5642bf2b23982a0b4a0305fc24109b366219b31736157acf:v2:guards-v2.4"
    ":6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c": _STATIC_AS_USED,
    # v12: the guards' data 5 ("Did you grow up in Texas?" is no contempt); `empa judge eval
    # --judger semantic` gave the same levels to the last digit as with data 4, side by side
    "8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975"
    ":01c05232e6c29c4f5642bf2b23982a0b4a0305fc24109b366219b31736157acf:v2:guards-v2.5"
    ":6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c": _STATIC_AS_USED,
}
#: The old phrase judge (``judger="lexicon"``), measured the same way.
LEXICON_AGREEMENT = RecordedAgreement(
    "lexicon", _EPITOME_DEV, 2116, {"A": (0.47, -0.09), "C": (0.50, 0.00), "P": (0.53, 0.06)}
)


def as_used_key(descriptor: Mapping[str, str]) -> str:
    """The identity of a guarded semantic judge as used: heads, grounding model and rules, guards
    and fluency."""
    return ":".join(
        descriptor.get(k, "")
        for k in (
            "inner.heads_sha256",
            "inner.grounding_sha256",
            "inner.grounding_rules",
            "guards",
            "fluency_sha256",
        )  # fmt: skip
    )


def reading_key(descriptor: Mapping[str, str]) -> str:
    """The identity of a reading judge as used: its rules, lexicon, meaning table, act head,
    heads, guards and fluency model, and its harm gate and head where it has them (the entries
    recorded before them have none)."""
    parts = [
        descriptor.get(k, "")
        for k in (
            "credit", "reading_lexicon_sha256", "meanings_sha256", "acts_sha256",
            "heads.heads_sha256", "guards", "fluency_sha256",
        )
    ]  # fmt: skip
    parts += [descriptor[k] for k in ("harm_gate_sha256", "harm_head_sha256") if k in descriptor]
    return ":".join(parts)


@dataclass(frozen=True)
class RecordedReading:
    """The reading judge's recorded agreement with people, as used: per axis (AUROC, Spearman,
    credited share, people's share) on EPITOME dev, and the contrastive check's wins."""

    pairs: int
    axes: Mapping[str, tuple[float, float, float, float]]
    contrast_posts: int
    contrast: Mapping[str, float]

    def summary(self) -> str:
        auroc = " / ".join(f"{v[0]:.3f}".lstrip("0") for v in self.axes.values())
        rho = " / ".join(f"{v[1]:.2f}".lstrip("0") for v in self.axes.values())
        shares = " / ".join(f"{v[2]:.2f} vs {v[3]:.2f}" for v in self.axes.values())
        return (
            f"AUROC {auroc}, Spearman {rho}, share credited {shares} (judge vs people; "
            f"{' / '.join(self.axes)})"
        )

    def contrast_summary(self) -> str:
        wins = ", ".join(f"{k.replace('_', ' ')} {v:.2f}" for k, v in self.contrast.items())
        return f"own reply higher than {wins} ({self.contrast_posts} posts)"


#: The reading judge's figures under credit-v8 as used (one measurement; the guards' data 4 and
#: 5 read EPITOME alike).
_CREDIT_V8_READING = RecordedReading(
    2116,
    {
        "A": (0.698, 0.384, 0.377, 0.334),
        "C": (0.707, 0.377, 0.538, 0.476),
        "P": (0.856, 0.657, 0.189, 0.156),
    },
    200,
    {"slot_fill": 0.708, "generic": 0.770, "another_post": 0.593},
)


#: Recorded figures of the reading judge (``judger="offline"``) by :func:`reading_key`, measured
#: by ``empa judge eval --epitome ../shared/data/epitome/dev.csv``.
RECORDED_READING: dict[str, RecordedReading] = {
    "credit-v3:fc6d7b005c087f2a971c4f6e5bcf6e9f0ac07b95cb1a120cbfb38b5fe67ab39a:60aaba7efb0115e1f5f06b08090f9ede18ae0f587e237f47882645d7e10e007b:65fb45b990d653d024d1cc55d15e349ded1ede6d5da4c6cfc4b2c9b3f724daab:8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975:guards-v2.4-by-meaning:6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c": RecordedReading(
        2116,
        {
            "A": (0.720, 0.409, 0.433, 0.334),
            "C": (0.720, 0.393, 0.597, 0.476),
            "P": (0.895, 0.690, 0.217, 0.156),
        },
        200,
        {"slot_fill": 0.562, "generic": 0.605, "another_post": 0.615},
    ),
    "credit-v4:13181b1efe005628c00cafe9d37b4b108137be9b1a17a379191c824f812682fb:60aaba7efb0115e1f5f06b08090f9ede18ae0f587e237f47882645d7e10e007b:65fb45b990d653d024d1cc55d15e349ded1ede6d5da4c6cfc4b2c9b3f724daab:8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975:guards-v2.4-by-meaning.2:6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c": RecordedReading(
        2116,
        {
            "A": (0.712, 0.405, 0.389, 0.334),
            "C": (0.710, 0.384, 0.540, 0.476),
            "P": (0.862, 0.660, 0.195, 0.156),
        },
        200,
        {"slot_fill": 0.603, "generic": 0.637, "another_post": 0.603},
    ),
    "credit-v5:49fb85cd9aba7735422cd0d5c9c0433b9293f1bd2a157da278b94a72beca830c:60aaba7efb0115e1f5f06b08090f9ede18ae0f587e237f47882645d7e10e007b:65fb45b990d653d024d1cc55d15e349ded1ede6d5da4c6cfc4b2c9b3f724daab:8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975:guards-v2.4-by-meaning.2:6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c": RecordedReading(
        2116,
        {
            "A": (0.704, 0.392, 0.387, 0.334),
            "C": (0.711, 0.385, 0.550, 0.476),
            "P": (0.859, 0.660, 0.192, 0.156),
        },
        200,
        {"slot_fill": 0.723, "generic": 0.785, "another_post": 0.603},
    ),
    "credit-v6:49fb85cd9aba7735422cd0d5c9c0433b9293f1bd2a157da278b94a72beca830c:60aaba7efb0115e1f5f06b08090f9ede18ae0f587e237f47882645d7e10e007b:65fb45b990d653d024d1cc55d15e349ded1ede6d5da4c6cfc4b2c9b3f724daab:8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975:guards-v2.4-by-meaning.2:6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c": RecordedReading(
        2116,
        {
            "A": (0.704, 0.391, 0.386, 0.334),
            "C": (0.711, 0.385, 0.549, 0.476),
            "P": (0.859, 0.660, 0.192, 0.156),
        },
        200,
        {"slot_fill": 0.723, "generic": 0.785, "another_post": 0.603},
    ),
    "credit-v6:49fb85cd9aba7735422cd0d5c9c0433b9293f1bd2a157da278b94a72beca830c:60aaba7efb0115e1f5f06b08090f9ede18ae0f587e237f47882645d7e10e007b:65fb45b990d653d024d1cc55d15e349ded1ede6d5da4c6cfc4b2c9b3f724daab:8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975:guards-v2.4-by-meaning.2:6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c:d4e7dcdeda63ad3885154ec61accf25aeb9cc113821c24e79752ddd715eaa287:893b2cb118456a2e56c84dfe60cec14a588ebf8e5dfebaa742a35e14b763e4d5": RecordedReading(
        2116,
        {
            "A": (0.703, 0.390, 0.383, 0.334),
            "C": (0.710, 0.382, 0.546, 0.476),
            "P": (0.858, 0.660, 0.190, 0.156),
        },
        200,
        {"slot_fill": 0.718, "generic": 0.780, "another_post": 0.598},
    ),
    "credit-v6:49fb85cd9aba7735422cd0d5c9c0433b9293f1bd2a157da278b94a72beca830c:60aaba7efb0115e1f5f06b08090f9ede18ae0f587e237f47882645d7e10e007b:65fb45b990d653d024d1cc55d15e349ded1ede6d5da4c6cfc4b2c9b3f724daab:8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975:guards-v2.4-by-meaning.2:6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c:2b906b6db9d8defc7ae14667039ea392c81fd19306778183cae33da567095ec9:e95f3db46ef9bd3af6aed17c8609f5b4a5daf4698da5169f0ef815e387ed5175": RecordedReading(
        2116,
        {
            "A": (0.698, 0.384, 0.377, 0.334),
            "C": (0.706, 0.376, 0.537, 0.476),
            "P": (0.856, 0.658, 0.189, 0.156),
        },
        200,
        {"slot_fill": 0.708, "generic": 0.770, "another_post": 0.593},
    ),
    "credit-v7:53604e8e89e4c426d27e2abe916364d6d1a3ffb3723102ad080d781f0b9d58ac:60aaba7efb0115e1f5f06b08090f9ede18ae0f587e237f47882645d7e10e007b:65fb45b990d653d024d1cc55d15e349ded1ede6d5da4c6cfc4b2c9b3f724daab:8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975:guards-v2.4-by-meaning.2:6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c:2b906b6db9d8defc7ae14667039ea392c81fd19306778183cae33da567095ec9:e95f3db46ef9bd3af6aed17c8609f5b4a5daf4698da5169f0ef815e387ed5175": RecordedReading(
        2116,
        {
            "A": (0.698, 0.384, 0.377, 0.334),
            "C": (0.707, 0.377, 0.538, 0.476),
            "P": (0.856, 0.657, 0.189, 0.156),
        },
        200,
        {"slot_fill": 0.708, "generic": 0.770, "another_post": 0.593},
    ),
    "credit-v8:53604e8e89e4c426d27e2abe916364d6d1a3ffb3723102ad080d781f0b9d58ac:60aaba7efb0115e1f5f06b08090f9ede18ae0f587e237f47882645d7e10e007b:65fb45b990d653d024d1cc55d15e349ded1ede6d5da4c6cfc4b2c9b3f724daab:8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975:guards-v2.4-by-meaning.2:6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c:2b906b6db9d8defc7ae14667039ea392c81fd19306778183cae33da567095ec9:e95f3db46ef9bd3af6aed17c8609f5b4a5daf4698da5169f0ef815e387ed5175": _CREDIT_V8_READING,
    "credit-v8:873123e753e45f9fd2f50e301e26ccbaea02815540ba6e9f244fa15808941830:60aaba7efb0115e1f5f06b08090f9ede18ae0f587e237f47882645d7e10e007b:65fb45b990d653d024d1cc55d15e349ded1ede6d5da4c6cfc4b2c9b3f724daab:8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975:guards-v2.4-by-meaning.2:6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c:2b906b6db9d8defc7ae14667039ea392c81fd19306778183cae33da567095ec9:e95f3db46ef9bd3af6aed17c8609f5b4a5daf4698da5169f0ef815e387ed5175": _CREDIT_V8_READING,
    # v12: the guards' data 5 ("Did you grow up in Texas?" is no contempt); EPITOME as used
    # re-measured identical
    "credit-v8:873123e753e45f9fd2f50e301e26ccbaea02815540ba6e9f244fa15808941830:60aaba7efb0115e1f5f06b08090f9ede18ae0f587e237f47882645d7e10e007b:65fb45b990d653d024d1cc55d15e349ded1ede6d5da4c6cfc4b2c9b3f724daab:8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975:guards-v2.5-by-meaning.2:6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c:2b906b6db9d8defc7ae14667039ea392c81fd19306778183cae33da567095ec9:e95f3db46ef9bd3af6aed17c8609f5b4a5daf4698da5169f0ef815e387ed5175": _CREDIT_V8_READING,
    # v14: credit-v9 (a slotted sentence grounds nothing; the reading's grammar of where a word
    # may stand); `empa judge eval --epitome ../shared/data/epitome/dev.csv --json`
    "credit-v9:873123e753e45f9fd2f50e301e26ccbaea02815540ba6e9f244fa15808941830:60aaba7efb0115e1f5f06b08090f9ede18ae0f587e237f47882645d7e10e007b:65fb45b990d653d024d1cc55d15e349ded1ede6d5da4c6cfc4b2c9b3f724daab:8968daa365913dcaf82a0f989ddd7ca941fc9461ca05a85f0654003eb2cc3975:guards-v2.5-by-meaning.2:6a6f4ba97ad0e0039cb31e010b76a31fbbd61ae3b73b3a2d5fbb53c5f700632c:2b906b6db9d8defc7ae14667039ea392c81fd19306778183cae33da567095ec9:e95f3db46ef9bd3af6aed17c8609f5b4a5daf4698da5169f0ef815e387ed5175": RecordedReading(
        2116,
        {
            "A": (0.698, 0.384, 0.377, 0.334),
            "C": (0.706, 0.375, 0.538, 0.476),
            "P": (0.855, 0.653, 0.190, 0.156),
        },
        200,
        {"slot_fill": 0.708, "generic": 0.770, "another_post": 0.590},
    ),
}


def recorded_agreement(heads_sha256: str) -> RecordedAgreement | None:
    """The recorded figures of a heads file, or ``None`` if it was never measured."""
    return RECORDED.get(heads_sha256)


@dataclass(frozen=True)
class JudgeStatement:
    """What a judge measures: a paragraph and, when recorded, its agreement with human raters."""

    judge: str
    text: str
    agreement: RecordedAgreement | None = None


def judge_statement(descriptor: Mapping[str, str]) -> JudgeStatement:
    """Plain words for the judge a run used, from its ``describe()`` (the run's configuration)."""
    cls = descriptor.get("class", "")
    name = descriptor.get("name", cls or "unknown judge")
    if cls == "GuardedJudger" and descriptor.get("inner.class") == "SemanticJudger":
        bare = recorded_agreement(descriptor.get("inner.heads_sha256", ""))
        as_used = RECORDED_AS_USED.get(as_used_key(descriptor))
        text = (
            "The offline judge is a proxy for a human rater, not one. Rules come first: they read "
            "the reply as a person reads it (look-alike letters, invisible characters and spacing "
            "folded), check every sentence, and penalise contempt (also hedged or reported), "
            "blame, denial, harmful advice (also as a suggestion), agreement with self-harm or "
            "worthlessness, another language, text aimed at a judge, incoherent text, padding, "
            "keyword stuffing, parroting and repeated templates, each with a quoted sentence; one "
            "contemptuous or harmful sentence leaves the whole reply without credit, and kind "
            'negations ("it\'s not your fault") are never penalised. Then small learned heads '
            "on sentence embeddings rate how far the reply shows understanding (C), warmth toward "
            "the person (A) and invites or empowers them (P), and a learned grounding model reads "
            "whether the reply is about this person: C credit needs a sentence anchored in what "
            "this user said, lines that would fit any conversation earn at most a little A (or P "
            "for a question) and nothing when they come again, and a reply written for someone "
            "else earns nothing. The models were trained only on a corpus written for this "
            "project, never on human-rated data. "
        )
        if as_used is not None:
            scores, levels = as_used
            goal = "meets" if scores.meets_goal() else "does not meet"
            text += (
                f"As used, on {scores.dataset}, {scores.pairs} pairs: its levels (ties broken by "
                f"the heads' expected level) reach {scores.summary()}, which {goal} the project's "
                f"bar of AUROC {GOAL_AUROC} and Spearman {GOAL_SPEARMAN} on every axis; its "
                f"levels alone {levels.summary()}. "
            )
            agreement: RecordedAgreement | None = scores
        else:
            text += (
                "This configuration has no recorded as-used agreement figures (retrained and not "
                "measured: run empa judge eval --epitome CSV). "
            )
            agreement = None
        if bare is not None:
            text += f"The bare heads alone: {bare.summary()}. "
        text += "Use an LLM judge when the ranking of capable models matters."
        return JudgeStatement(name, text, agreement)
    if cls == "ReadingJudger":
        return _reading_statement(name, descriptor)
    if cls == "LexiconJudger":
        return JudgeStatement(
            name,
            "The old phrase judge: it matches the reply against its own list of phrases and the "
            "user's words. It is kept for speed comparisons only; it rewards phrases, not "
            f"empathy (on {LEXICON_AGREEMENT.dataset}: {LEXICON_AGREEMENT.summary()}, chance).",
            LEXICON_AGREEMENT,
        )
    if cls == "LLMJudger":
        model = descriptor.get("model", "the configured model")
        return JudgeStatement(
            name,
            f"An LLM ({model}) rates each reply with the MDEP-PR rubric and quotes its evidence. "
            "Its agreement with human raters is not measured by this project; it depends on the "
            "model.",
        )
    return JudgeStatement(
        name, f"A custom judge ({cls or 'unknown class'}); what it measures is its author's to say."
    )


def _reading_statement(name: str, descriptor: Mapping[str, str]) -> JudgeStatement:
    text = (
        "The offline judge is a proxy for a human rater, not one. It reads each reply once, by "
        "meaning: sentence by sentence, the language of each, what each does (a question, a "
        "reflection, advice, warmth, a story of the writer's own, a closing) and what each speaks "
        "about among the people, feelings, amounts and events this user told, matched by meaning "
        "(lemmas, a table of word meanings, relations that name the same person, names, numbers, "
        "what it says in other words), not by one shared word. Penalties come before credit: "
        "contempt, blame, denial, harmful suggestions, sentences the user cannot read, text aimed "
        "at a judge, word salad, repeated templates; any of them leaves the reply without credit. "
        "A sentence earns only for what it does itself: understanding (C) for saying back or "
        "interpreting what this user told, or sharing a similar experience; warmth (A); "
        "exploration (P) for asking about what they told. A sentence that speaks about nothing of "
        "this user's, or names one word of theirs in a stock frame, fits any conversation and earns "
        "a small credit once in a conversation; getting their feeling, a person or an amount wrong "
        "costs C. Levels are graded between the rubric's integers. "
    )
    text += (
        "Its learned parts (word meanings from a sentence encoder, a head that rates acts and heads "
        "that read harm, trained on replies written for this project) were never trained on "
        "human-rated data. "
    )
    recorded = RECORDED_READING.get(reading_key(descriptor))
    agreement: RecordedAgreement | None = None
    if recorded is not None:
        agreement = RecordedAgreement(
            "reading as used",
            _EPITOME_DEV,
            recorded.pairs,
            {a: (v[0], v[1]) for a, v in recorded.axes.items()},
        )
        text += (
            f"As used, on {_EPITOME_DEV}, {recorded.pairs} pairs: {recorded.summary()}; the "
            f"contrastive check: {recorded.contrast_summary()}. The project's bar (AUROC "
            f"{GOAL_AUROC}, Spearman {GOAL_SPEARMAN}, share within .10 of people's on every axis; "
            "contrast .80 / .80 / .75) is not met on every count: read these figures before "
            "trusting the scores. "
        )
    else:
        text += (
            "This configuration has no recorded as-used agreement figures (changed and not "
            "measured: run empa judge eval --epitome CSV). "
        )
    text += "Use an LLM judge when the ranking of capable models matters."
    return JudgeStatement(name, text, agreement)


__all__ = [
    "RECORDED_READING",
    "RecordedReading",
    "reading_key",
    "GOAL_AUROC",
    "GOAL_SPEARMAN",
    "RECORDED",
    "RECORDED_AS_USED",
    "as_used_key",
    "JudgeStatement",
    "RecordedAgreement",
    "judge_statement",
    "recorded_agreement",
]
