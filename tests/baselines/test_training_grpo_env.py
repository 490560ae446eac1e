"""TRL's environment path: stock GRPOTrainer (no subclass) trains a tiny model on EMPA through
``environment_factory``, multi-turn (the model speaks through the ``reply`` tool), with the
per-turn rewards kept on each environment, and every played episode is the one env.step plays."""

from __future__ import annotations

import copy
import os

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

from trl import GRPOConfig, GRPOTrainer  # noqa: E402
from trl.chat_template_utils import parse_response  # noqa: E402

from baselines.training.hf.tiny import no_checkpointing  # noqa: E402
from baselines.training.hf.tiny_tools import build_tiny_tool_caller  # noqa: E402
from empa_env.integrations.trl import EMPAToolEnv, dataset_rows, empa_dataset, epm_index_reward  # noqa: E402
from tests.integrations.reference import assistant_replies, replay  # noqa: E402

pytestmark = [pytest.mark.train, pytest.mark.slow]

ENV_ID = "EMPA-v14"
SHORT = {"max_turns": 3, "epm_overrides": {"min_turns": 2}}


@pytest.fixture(scope="module")
def tool_caller():
    return build_tiny_tool_caller(seed=0)


def test_the_tiny_tool_caller_speaks_through_the_reply_tool(tool_caller):
    import torch

    model, tokenizer = tool_caller
    env = EMPAToolEnv(ENV_ID, **SHORT)
    tools = [env.reply]
    torch.manual_seed(0)
    calls = 0
    for seed in range(8):
        messages = [{"role": "user", "content": env.reset(seed=100 + seed)}]
        prompt = tokenizer.apply_chat_template(
            messages, tools=tools, add_generation_prompt=True, return_dict=True, return_tensors="pt"
        )
        out = model.generate(**prompt, max_new_tokens=60, do_sample=True, temperature=1.0)
        ids = out[0, prompt["input_ids"].shape[1] :].tolist()
        parsed = parse_response(tokenizer, ids, prefix=prompt["input_ids"][0].tolist(), tools=tools)
        calls += any(c["function"]["name"] == "reply" for c in parsed.get("tool_calls") or [])
    assert calls >= 5, f"{calls} of 8 samples call reply"


def test_stock_grpo_trainer_trains_on_empa_through_environment_factory(tool_caller, tmp_path):
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    model, tokenizer = copy.deepcopy(tool_caller[0]), tool_caller[1]
    envs: list[EMPAToolEnv] = []

    def factory() -> EMPAToolEnv:
        envs.append(EMPAToolEnv(ENV_ID, **SHORT))
        return envs[-1]

    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    args = GRPOConfig(
        output_dir=str(tmp_path), max_steps=2, num_generations=2, per_device_train_batch_size=2,
        max_completion_length=384, learning_rate=1e-3, use_cpu=True, bf16=False, report_to=[],
        logging_steps=1, save_strategy="no", seed=0, **no_checkpointing(GRPOConfig),
    )  # fmt: skip
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=args,
        train_dataset=empa_dataset(ENV_ID, cases=2),
        environment_factory=factory,
        reward_funcs=[epm_index_reward],
    )
    trainer.train()

    assert type(trainer) is GRPOTrainer
    logged = [h for h in trainer.state.log_history if "loss" in h]
    assert len(logged) == 2
    assert all("rewards/EMPAToolEnv/mean" in h and h["tools/call_frequency"] > 1 for h in logged)
    assert any(not p.equal(before[name]) for name, p in model.named_parameters())
    seeds = {row["case"]: row["seed"] for row in dataset_rows(ENV_ID, cases=2)}
    played = [env for env in envs if env.rewards]
    assert any(len(env.rewards) >= 2 for env in played), "no episode went past its first turn"
    for env in played:  # the episode TRL played is the one env.step plays with its replies
        case = env.conversation.case_id
        reference = replay(
            assistant_replies(env.messages), env_id=ENV_ID, case=case, seed=seeds[case], **SHORT
        )
        assert env.messages == reference.messages
        assert env.rewards == reference.rewards
        assert env.get_reward() == sum(reference.rewards)
        if env.conversation.done:
            assert epm_index_reward([env]) == [reference.epm_index]


def test_empa_train_grpo_trl_takes_trls_environment_path_where_the_model_can(tmp_path, capsys):
    import json

    from baselines.train_cli import main

    quick = ["--max-steps", "1", "--batch-size", "2", "--num-generations", "2", "--num-cases", "2",
             "--env-kwargs", json.dumps(SHORT), "--no-save", "--output-dir", str(tmp_path)]  # fmt: skip
    assert (
        main(["grpo-trl", "--model", "tiny-tools", "--max-completion-length", "384", *quick]) == 0
    )
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["rollout"] == "environment" and out["steps"] == 1
    assert "rewards/EMPAToolEnv/mean" in out and out["empa/turns"] >= 1
    assert out["tools/call_frequency"] > 0


def test_empa_train_grpo_trl_says_why_a_model_cannot_take_the_environment_path(capsys):
    from baselines.train_cli import main

    with pytest.raises(SystemExit) as stop:
        main(["grpo-trl", "--model", "tiny", "--rollout", "environment", "--max-steps", "1"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert (
        "--rollout environment: the model cannot play it: its chat template cannot render a "
        "tool-calling conversation" in err
    )
