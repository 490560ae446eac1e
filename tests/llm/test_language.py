"""The case's language is honoured: a Chinese case (converted from the official EMPA cards) is
played end to end with every role an LLM (through the scripted OpenAI-compatible server), each
role is told the language, and the offline roles refuse it at reset."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from empa_env import EMPAEnv
from empa_env.cases.loader import load_directory
from empa_env.cli import main
from empa_env.llm import UsageLedger
from empa_env.roles.views import ActorPersona, ActorView, JudgeProfile, JudgeView, Message

from .conftest import MODEL

OFFICIAL = Path(
    os.environ.get("EMPA_OFFICIAL_DATA", Path(__file__).resolve().parents[3] / "shared" / "data" / "empa-official")
)  # fmt: skip

pytestmark = pytest.mark.skipif(
    not (OFFICIAL / "empa" / "data" / "cases").is_dir(),
    reason=f"the official EMPA slice is not at {OFFICIAL} (set EMPA_OFFICIAL_DATA)",
)


@pytest.fixture(scope="module")
def zh_case(tmp_path_factory):
    out = tmp_path_factory.mktemp("zh")
    assert (
        main(["cases", "import-official", str(OFFICIAL), "--out", str(out), "--id", "script_003"])
        == 0
    )
    (case,) = load_directory(out)
    assert case.language == "zh"
    return case


def test_a_whole_zh_episode_with_every_role_an_llm(zh_case, server, opts):
    spec = f"llm:{MODEL}"
    ledger = UsageLedger()
    env = EMPAEnv(
        [zh_case], actor=spec, director=spec, judger=spec, max_turns=12,
        llm_options={**opts, "ledger": ledger},
    )  # fmt: skip
    opening, info = env.reset(seed=0)
    assert opening and info["case_id"] == zh_case.id
    replies = ("听起来真的很难受。发生了什么？", "你一直在坚持，这很不容易。", "你最在意的是什么？")
    turn = 0
    while True:
        *_, terminated, truncated, info = env.step(replies[turn % 3])
        turn += 1
        if terminated or truncated:
            break
    traj = env.trajectory
    assert traj.num_turns == turn and turn >= 12 and not traj.meta.get("aborted")
    assert traj.judge_failures == 0  # every turn judged (the scripted judge answers any language)
    # every role is told the case's language, in its own prompt
    history = (Message("user", opening),)
    judge_prompt = env.roles.judger.messages(
        JudgeView(JudgeProfile.from_case(zh_case), history, replies[0], 1)
    )
    assert "The conversation is in Chinese (zh)" in judge_prompt[0]["content"]
    actor_prompt = env.roles.actor.messages(
        ActorView(ActorPersona.from_case(zh_case), history, None, 1, 0)
    )
    assert "Write every message of yours in Chinese" in actor_prompt[0]["content"]
    director_prompt = env.roles.director.messages(env._director_view(env._episode), False)
    assert (
        "Write actor_guidance and every free-text argument in Chinese"
        in (director_prompt[0]["content"])
    )


def test_offline_roles_refuse_the_zh_case_at_reset(zh_case):
    env = EMPAEnv([zh_case])
    with pytest.raises(ValueError, match="plays cases in en only.*'zh'.*llm:MODEL"):
        env.reset(seed=0)
