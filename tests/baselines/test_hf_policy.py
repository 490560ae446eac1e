"""``hf:PATH``: a local causal LM (the offline tiny model saved to a folder) plays a reply."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")
pytestmark = pytest.mark.train


def test_hf_policy_replies_from_a_saved_model(tmp_path) -> None:
    from baselines.policies.hf_policy import HFPolicy
    from baselines.training.hf.tiny import TinyConfig, build_tiny_causal_lm
    from empa_env.policy import load_policy

    model, tokenizer = build_tiny_causal_lm(cfg=TinyConfig())
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    policy = load_policy(f"hf:{tmp_path}", max_new_tokens=4)
    assert isinstance(policy, HFPolicy)
    reply = policy.reply([{"role": "user", "content": "I lost my job today."}])
    assert isinstance(reply, str)
    assert policy.describe()["max_new_tokens"] == 4
