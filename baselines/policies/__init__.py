"""Companion policies: the scripted baselines, LiteLLM models and local Hugging Face models.

The policy contract (:class:`~empa_env.policy.Policy`) and the spec loader
(:func:`~empa_env.policy.load_policy`) live in ``empa_env``; this package contributes the policy
kinds ``scripted:NAME``, ``litellm:MODEL`` and ``hf:PATH`` through the ``empa.policies`` entry points.
"""

from baselines.policies.scripted import PROBE_POLICIES, REFERENCE_POLICIES, SCRIPTED
from empa_env.policy import FunctionPolicy, Messages, Policy, PolicySpecError, load_policy

__all__ = [
    "PROBE_POLICIES", "REFERENCE_POLICIES", "SCRIPTED", "FunctionPolicy", "Messages", "Policy",
    "PolicySpecError", "load_policy",
]  # fmt: skip
