"""A new loss type in one file: each reply's per-token terms averaged, then averaged over the
turns of the generation (``loss_type="reply_mean"``): TRL's ``grpo`` aggregation, written anew
on the public :class:`~baselines.training.mica.losses.LossType` contract."""

from __future__ import annotations

import torch

from baselines.training.mica.losses import ClippedTerms, LossTerms, LossType, loss_types


@loss_types.register("reply_mean", replace=True)
class ReplyMeanLoss(LossType):
    def numerator(self, t: ClippedTerms) -> LossTerms:
        ratio = torch.exp(t.log_ratio)
        per_token = t.clipped(ratio) * t.mask
        per_reply = per_token.sum(-1) / t.mask.sum(-1).clamp(min=1.0)
        return LossTerms(per_reply.sum(), ratio.detach(), t.is_clipped(ratio), t.detached_kl())

    def denominator(self, turns: int, tokens: int, max_new_tokens: int) -> float:
        return float(max(turns, 1))
