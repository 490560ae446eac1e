"""The default offline Judger and its named variants (the ``empa.judgers`` entry points).

* ``"offline"`` / ``"semantic[:TIER]"``: reply guards (penalties before credit: contempt, blame,
  harmful advice, wrong language, word salad, repeated templates, ...) around the learned semantic
  judge (sentence embeddings + trained heads, :mod:`empa_env.offline.semantic`);
* ``"lexicon"``: the transparent phrase-rule judge of the first version, kept for speed
  comparisons (it rates phrases, not empathy: see the README).
"""

from __future__ import annotations

from empa_env.offline.guarded import GuardedJudger
from empa_env.offline.semantic.encoder import shared_encoder
from empa_env.offline.semantic.grounding import GroundingGuard, GroundingModel
from empa_env.offline.semantic.judger import SemanticJudger

#: The encoder tier of the default judge (``"minilm"``: int8 MiniLM; ``"static"``: static vectors).
DEFAULT_TIER = "static"


def offline_judger(tier: str = DEFAULT_TIER) -> GuardedJudger:
    """``judger="offline"`` (or ``"semantic:TIER"``): guards around the semantic judge."""
    # A reply the encoder cannot read gets zero credit from the heads (not a judge failure); the
    # guards rate it (a language other than the case's misses the person).
    encoder = shared_encoder(tier)
    grounding = GroundingModel.for_encoder(encoder)  # shipped for the static tier's vectors
    guards = (GroundingGuard(grounding),) if grounding is not None else ()
    inner = SemanticJudger(tier=tier, guards=guards, encoder=encoder, unsupported_language="zero")
    return GuardedJudger(inner)


__all__ = ["DEFAULT_TIER", "offline_judger"]
