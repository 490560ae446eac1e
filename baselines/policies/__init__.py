"""Policies: the protocol, the scripted baselines and loaders for every kind of policy spec.

Policy specs (``empa bench --policy SPEC``):

* ``scripted:NAME`` (``attuned``, ``advice_giver``, ``lecturer``, ``random_mixer``, ``empty``,
  ``verbose``, ``keyword_stuffer``, ``repeater``, ``parrot``, ``judge_injection``);
* ``python:MODULE:FUNCTION`` or ``python:path/to/file.py:FUNCTION``: a function
  ``f(messages) -> str`` (sync or async), or a :class:`Policy` subclass/instance;
* ``litellm:MODEL``: any LiteLLM model string (``litellm:openai/gpt-4o-mini``,
  ``litellm:openai/smollm2`` with ``api_base``), with our companion system prompt;
* ``hf:PATH``: a local Hugging Face causal LM folder (needs the ``train`` extra).

A ``NAME=`` prefix renames a policy in results: ``--policy mine=python:my_policy.py:reply``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

from baselines.policies.base import FunctionPolicy, Messages, Policy, StatelessPolicy
from baselines.policies.scripted import PROBE_POLICIES, REFERENCE_POLICIES, SCRIPTED


class PolicySpecError(ValueError):
    """A policy spec that cannot be loaded; the message says what is accepted."""


def _load_python(target: str) -> Any:
    module_part, sep, attr = target.rpartition(":")
    if not sep or not module_part or not attr:
        raise PolicySpecError(
            f"python policy must be python:MODULE:FUNCTION or python:FILE.py:FUNCTION, got {target!r}"
        )
    if module_part.endswith(".py"):
        path = Path(module_part)
        if not path.is_file():
            raise PolicySpecError(f"policy file {path} does not exist")
        digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:10]
        name = f"_empa_policy_{path.stem}_{digest}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise PolicySpecError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(module_part)
        except ImportError as exc:
            raise PolicySpecError(f"cannot import module {module_part!r}: {exc}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise PolicySpecError(f"{module_part} has no attribute {attr!r}") from None


def load_policy(spec: str, **options: Any) -> Policy:
    """Build a policy from a spec string (see the module docstring)."""
    alias = None
    if "=" in spec.split(":", 1)[0]:
        alias, spec = spec.split("=", 1)
    kind, _, target = spec.partition(":")
    if kind == "scripted":
        if target not in SCRIPTED:
            raise PolicySpecError(f"unknown scripted policy {target!r}; known: {sorted(SCRIPTED)}")
        policy: Policy = SCRIPTED[target]()
    elif kind == "python":
        obj = _load_python(target)
        if inspect.isclass(obj) and issubclass(obj, Policy):
            policy = obj()
        elif isinstance(obj, Policy):
            policy = obj
        elif callable(obj):
            source = target
            file_part = target.rpartition(":")[0]
            if file_part.endswith(".py"):  # a changed file is a different policy
                code = hashlib.sha256(Path(file_part).read_bytes()).hexdigest()[:16]
                source = f"{Path(file_part).resolve()}:{target.rpartition(':')[2]}@sha256:{code}"
            policy = FunctionPolicy(obj, name=getattr(obj, "__name__", target), source=source)
        else:
            raise PolicySpecError(f"{target} is neither a function nor a Policy")
    elif kind == "litellm":
        from baselines.policies.litellm_policy import LiteLLMPolicy

        policy = LiteLLMPolicy(target, **options)
    elif kind == "hf":
        from baselines.policies.hf_policy import HFPolicy

        policy = HFPolicy(target, **options)
    else:
        raise PolicySpecError(
            f"unknown policy spec {spec!r}: use scripted:NAME, python:MODULE:FUNCTION, "
            "python:FILE.py:FUNCTION, litellm:MODEL or hf:PATH"
        )
    if alias:
        policy.name = alias
    return policy


__all__ = [
    "PROBE_POLICIES", "REFERENCE_POLICIES", "SCRIPTED", "FunctionPolicy", "Messages", "Policy",
    "PolicySpecError", "StatelessPolicy", "load_policy",
]  # fmt: skip
