"""The default offline Judger and its named variants (the ``empa.judgers`` entry points).

* ``"offline"`` / ``"reading"``: the reading judge (:class:`~empa_env.offline.reading_judge.ReadingJudger`):
  one reading of the reply by meaning, penalties before credit, credit for attention to this user
  sentence by sentence, graded by the learned heads;
* ``"semantic[:TIER]"``: the previous default, reply guards around the learned semantic judge
  (sentence embeddings + trained heads, :mod:`empa_env.offline.semantic`) with its word-list
  grounding, kept reachable by name (``judger="semantic"``);
* ``"lexicon"``: the transparent phrase-rule judge of the first version, kept for speed
  comparisons (it rates phrases, not empathy: see the README).
"""

from __future__ import annotations

from empa_env.offline.guarded import GuardedJudger
from empa_env.offline.reading_judge import DEFAULT_TIER, ReadingJudger
from empa_env.offline.semantic.encoder import shared_encoder
from empa_env.offline.semantic.grounding import GroundingGuard, GroundingModel
from empa_env.offline.semantic.judger import SemanticJudger


def offline_judger(tier: str = DEFAULT_TIER) -> ReadingJudger:
    """``judger="offline"`` (or ``"reading"``): the reading judge."""
    return ReadingJudger(tier)


def semantic_judger(tier: str = DEFAULT_TIER) -> GuardedJudger:
    """``judger="semantic[:TIER]"``: guards around the semantic judge (the previous default)."""
    # A reply the encoder cannot read gets zero credit from the heads (not a judge failure); the
    # guards rate it (a language other than the case's misses the person).
    encoder = shared_encoder(tier)
    grounding = GroundingModel.for_encoder(encoder)  # shipped for the static tier's vectors
    guards = (GroundingGuard(grounding),) if grounding is not None else ()
    inner = SemanticJudger(tier=tier, guards=guards, encoder=encoder, unsupported_language="zero")
    return GuardedJudger(inner)


__all__ = ["DEFAULT_TIER", "offline_judger", "semantic_judger"]
