"""Loss types of the MICA trainer: how the clipped per-token policy-gradient terms of a
generation add up to one loss (``MICAConfig.loss_type``; the formulas are in
:mod:`baselines.training.mica.trainer`'s docstring).

Every loss type gets the same :class:`ClippedTerms` of one chunk of turns (``N`` turns, ``L - 1``
reply-token positions): the per-token log-ratio ``log(pi_theta / pi_old)``, the advantages
``A_t``, the reply-token mask and, with ``beta > 0``, the per-token KL ``k3`` to the reference. It
returns the chunk's loss *numerator* (:meth:`LossType.numerator`) and says what a whole
generation's numerators are divided by (:meth:`LossType.denominator`), so chunks add up to the
loss of the whole generation.

Loss types are a registry (:data:`loss_types`, entry-point group ``empa.loss_types``): another is
one :class:`LossType` subclass plus ``@loss_types.register("name")``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from empa_env.registry import Registry


@dataclass
class LossTerms:
    """What :func:`baselines.training.mica.trainer.policy_loss_terms` returns: ``numerator /
    denominator`` is the loss; the rest are diagnostics (detached)."""

    numerator: torch.Tensor  # scalar, differentiable
    ratio: torch.Tensor  # (N, L - 1) token ratios; (N, 1) sequence ratios for mica_seq
    clipped: torch.Tensor  # (N, L - 1) bool: reply tokens whose term is clipped
    kl: torch.Tensor | None  # (N, L - 1) per-token KL to the reference (beta > 0)


@dataclass(frozen=True)
class ClippedTerms:
    """One chunk's ingredients, shared by every loss type.

    Attributes:
        log_ratio: ``(N, L - 1)`` ``log pi_theta - log pi_old`` on reply tokens, 0 elsewhere.
        a: ``(N, 1)`` the turn advantages ``A_t``.
        on: ``(N, L - 1)`` bool reply-token mask; ``mask`` the same as floats.
        kl: ``(N, L - 1)`` per-token KL to the reference, or ``None`` (``beta = 0``).
    """

    log_ratio: torch.Tensor
    a: torch.Tensor
    on: torch.Tensor
    mask: torch.Tensor
    kl: torch.Tensor | None
    epsilon_low: float
    epsilon_high: float
    beta: float

    def clipped(self, ratio: torch.Tensor) -> torch.Tensor:
        """``-min(ratio * A, clip(ratio, 1 - eps_low, 1 + eps_high) * A)``."""
        clipped_ratio = torch.clamp(ratio, 1 - self.epsilon_low, 1 + self.epsilon_high)
        return -torch.min(ratio * self.a, clipped_ratio * self.a)

    def is_clipped(self, ratio: torch.Tensor) -> torch.Tensor:
        """Reply tokens whose term the clip holds (detached)."""
        a, lo, hi = self.a, self.epsilon_low, self.epsilon_high
        out = ((ratio < 1 - lo) & (a < 0)) | ((ratio > 1 + hi) & (a > 0))
        return (out & self.on).detach()

    def detached_kl(self) -> torch.Tensor | None:
        return self.kl.detach() if self.kl is not None else None


class LossType:
    """How a chunk's clipped terms become its loss numerator, and what a generation's numerators
    are divided by."""

    def numerator(self, t: ClippedTerms) -> LossTerms:
        raise NotImplementedError

    def denominator(self, turns: int, tokens: int, max_new_tokens: int) -> float:
        """The divisor over a whole generation of ``turns`` turns with ``tokens`` reply tokens."""
        raise NotImplementedError


#: Loss types by name (``MICAConfig.loss_type``).
loss_types: Registry[LossType] = Registry("loss type", "empa.loss_types")


class _TokenLoss(LossType):
    """Per-token ratios (TRL's token-level losses); subclasses say how tokens add up."""

    def numerator(self, t: ClippedTerms) -> LossTerms:
        ratio = torch.exp(t.log_ratio)
        per_token = t.clipped(ratio)
        if t.kl is not None:
            per_token = per_token + t.beta * t.kl
        per_token = per_token * t.mask
        return LossTerms(
            self.reduce(per_token, t.mask), ratio.detach(), t.is_clipped(ratio), t.detached_kl()
        )

    def reduce(self, per_token: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The chunk's numerator from its masked per-token terms: their sum."""
        return per_token.sum()


@loss_types.register("grpo")
class GRPOLoss(_TokenLoss):
    """TRL's ``grpo``: the mean over each reply's tokens, summed over turns (divide by turns)."""

    def reduce(self, per_token: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return (per_token.sum(-1) / mask.sum(-1).clamp(min=1.0)).sum()

    def denominator(self, turns: int, tokens: int, max_new_tokens: int) -> float:
        return float(max(turns, 1))


@loss_types.register("dapo")
class DAPOLoss(_TokenLoss):
    """TRL's ``dapo``: every reply token's term summed, divided by the number of reply tokens."""

    def denominator(self, turns: int, tokens: int, max_new_tokens: int) -> float:
        return float(max(tokens, 1))


@loss_types.register("dr_grpo")
class DrGRPOLoss(_TokenLoss):
    """TRL's ``dr_grpo``: every reply token's term summed, divided by turns x max_new_tokens."""

    def denominator(self, turns: int, tokens: int, max_new_tokens: int) -> float:
        return float(max(turns * max_new_tokens, 1))


@loss_types.register("mica_seq")
class MICASequenceLoss(LossType):
    """The paper's Algorithm 1: one ratio per reply (its tokens' log-ratios summed), clipped per
    turn, summed over turns (divide by turns); the KL summed over each reply."""

    def numerator(self, t: ClippedTerms) -> LossTerms:
        ratio = torch.exp(t.log_ratio.sum(-1, keepdim=True))
        per_turn = t.clipped(ratio)
        per_turn = per_turn.squeeze(1) * t.on.any(-1).to(t.mask.dtype)  # masked replies: nothing
        if t.kl is not None:
            per_turn = per_turn + t.beta * (t.kl * t.mask).sum(-1)
        return LossTerms(per_turn.sum(), ratio.detach(), t.is_clipped(ratio), t.detached_kl())

    def denominator(self, turns: int, tokens: int, max_new_tokens: int) -> float:
        return float(max(turns, 1))


def loss_type(name: str) -> LossType:
    """The loss type registered as ``name`` (a :class:`ValueError` naming the known ones)."""
    if name not in loss_types:
        raise ValueError(f"unknown loss_type {name!r}; choose one of {loss_types.names()}")
    return loss_types.create(name)


__all__ = [
    "ClippedTerms", "DAPOLoss", "DrGRPOLoss", "GRPOLoss", "LossTerms", "LossType",
    "MICASequenceLoss", "loss_type", "loss_types",
]  # fmt: skip
