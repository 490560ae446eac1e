"""The LLM Actor on the real local model (SmolLM2-135M behind llama-cpp-python): how often a
question about a fact the user can tell is answered with that fact's words (issue 22).

    python benchmarks/perf/perf_llm_actor.py [--cases 4] [--per-case 3] [--api-base URL]

For each case, up to ``--per-case`` facts known from the start are asked about, each in a fresh
episode after the opening (the question is the first reply, so the only thing that differs is the
question). A reply counts as

* **exact** when it contains the fact's first sentence;
* **with the fact's words** when at least half of the fact's ``about`` words (its subject: a name,
  a relation, the thing) appear in it.

The same probes are played with the offline Actor for comparison. Starts its own server unless
``--api-base`` (or ``EMPA_SMOLLM2_API_BASE``) names a running one. A 135M model is weak: the
figure is reported as measured.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from empa_env.env import EMPAEnv  # noqa: E402
from empa_env.languages import language  # noqa: E402
from empa_env.llm.local_server import LITELLM_MODEL, LocalLLMServer  # noqa: E402

EN = language("en")
TEMPLATES = {
    "person": "Who is {Subject} to you?",
    "said": "What was said about the {subject}?",
    "duration": "How long has the {subject} been going on?",
    "place": "Where was that, the {subject}?",
    "tried": "What have you tried with the {subject}?",
    "reason": "Why the {subject}, do you think?",
    "event": "Can you tell me more about the {subject}?",
}


def question(fact) -> str:  # noqa: ANN001 - a Fact
    subject = fact.about[0]
    return TEMPLATES[fact.kind].format(Subject=subject.capitalize(), subject=subject)


def scores(message: str, fact) -> tuple[bool, bool]:  # noqa: ANN001
    """(exact, with the fact's words)."""
    low = message.lower()
    exact = EN.sentences(fact.answer)[0].lower() in low
    words = set(EN.words(low))
    about = [w for w in fact.about if w not in EN.stopwords]
    told = sum(w in words or w.rstrip("s") in words for w in about)
    return exact, bool(about) and told * 2 >= len(about)


def probe(env: EMPAEnv, cases: list, per_case: int) -> tuple[int, int, int, list[str]]:
    asked = exact = worded = 0
    samples: list[str] = []
    for case in cases:
        for fact in [f for f in case.facts if f.stage is None][:per_case]:
            env.reset(seed=0, options={"case": case.id})
            q = question(fact)
            obs, *_ = env.step(q)
            e, w = scores(obs, fact)
            asked += 1
            exact += e
            worded += w
            if len(samples) < 6:
                samples.append(f"  {q!r} -> {obs!r} (fact: {fact.answer!r})")
    return asked, exact, worded, samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--per-case", type=int, default=3)
    parser.add_argument("--api-base", default=os.environ.get("EMPA_SMOLLM2_API_BASE", ""))
    args = parser.parse_args()
    server = None
    api_base = args.api_base
    if not api_base:
        server = LocalLLMServer().start()
        api_base = server.api_base
    try:
        options = {"api_base": api_base, "timeout": 180.0, "max_retries": 0, "max_repairs": 0,
                   "max_tokens": 80}  # fmt: skip
        llm = EMPAEnv("empa30-v1", actor=f"llm:{LITELLM_MODEL}", judger="lexicon",
                      llm_options=options)  # fmt: skip
        offline = EMPAEnv("empa30-v1", judger="lexicon")
        cases = list(llm.cases)[: args.cases]
        t0 = time.perf_counter()
        asked, exact, worded, samples = probe(llm, cases, args.per_case)
        wall = time.perf_counter() - t0
        o_asked, o_exact, o_worded, _ = probe(offline, cases, args.per_case)
    finally:
        if server is not None:
            server.stop()
    print(f"cases: {len(cases)}, questions about facts known from the start: {asked}")
    print(
        f"LLM Actor (SmolLM2-135M): answered with the fact's words {worded}/{asked} = "
        f"{worded / asked:.0%}; the fact's first sentence verbatim {exact}/{asked} = "
        f"{exact / asked:.0%}; {wall:.0f} s wall ({wall / asked:.1f} s per episode)"
    )
    print(
        f"offline Actor, same probes: with the fact's words {o_worded}/{o_asked} = "
        f"{o_worded / o_asked:.0%}; verbatim {o_exact}/{o_asked} = {o_exact / o_asked:.0%}"
    )
    print("samples:")
    print("\n".join(samples))


if __name__ == "__main__":
    main()
