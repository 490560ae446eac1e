"""A policy played by a local Hugging Face causal LM (``hf:PATH``; needs the ``train`` extra).

Nothing is downloaded: ``PATH`` must be a local folder with a model and a tokenizer that has a chat
template (``local_files_only=True``)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from baselines.policies.litellm_policy import companion_prompt
from empa_env.policy import Messages, Policy


class HFPolicy(Policy):
    def __init__(
        self,
        path: str,
        *,
        max_new_tokens: int = 120,
        temperature: float = 0.0,
        system_prompt: str | None = None,
        device: str = "cpu",
    ) -> None:
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer, BatchEncoding
        except ImportError as exc:  # pragma: no cover - depends on the extra
            raise ImportError(
                "hf: policies need the train extra: pip install 'empa-gym[train]'"
            ) from exc
        self._torch = torch
        self._batch_encoding = BatchEncoding
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
        torch.nn.Module.to(model, device)  # in place (transformers' decorated ``to`` is untyped)
        model.eval()
        self.model = model
        self.device = device
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.prompt_version, default = companion_prompt()
        self.system_prompt = system_prompt if system_prompt is not None else default
        self.name = f"hf:{path}"
        self.path = path
        self._lock = threading.Lock()  # one generate() at a time per model

    def reply(self, messages: Messages) -> str:
        chat = [{"role": "system", "content": self.system_prompt}, *messages]
        # return_dict: input ids *and* their attention mask, whatever the transformers version's
        # default (a bare tensor before 5.0, a BatchEncoding since).
        encoded = self.tokenizer.apply_chat_template(
            chat, add_generation_prompt=True, return_tensors="pt", return_dict=True
        )
        if not isinstance(encoded, self._batch_encoding):
            raise TypeError(f"the tokenizer of {self.path} returned {type(encoded).__name__}")
        ids = encoded["input_ids"].to(self.device)
        mask = encoded["attention_mask"].to(self.device)
        sampling = (
            {"do_sample": True, "temperature": self.temperature}
            if self.temperature > 0
            else {"do_sample": False}
        )
        pad = (
            self.tokenizer.pad_token_id
            if self.tokenizer.pad_token_id is not None
            else self.tokenizer.eos_token_id
        )
        with self._lock, self._torch.no_grad():
            out = self.model.generate(
                ids,
                attention_mask=mask,
                max_new_tokens=self.max_new_tokens,
                pad_token_id=pad,
                **sampling,
            )
        new = out[:, ids.shape[1] :]
        return str(self.tokenizer.batch_decode(new, skip_special_tokens=True)[0]).strip()

    async def areply(self, messages: Messages) -> str:
        return await asyncio.to_thread(self.reply, messages)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "class": "HFPolicy",
            "path": self.path,
            "max_new_tokens": self.max_new_tokens,
            "temperature": self.temperature,
            "prompt_version": self.prompt_version,
        }
