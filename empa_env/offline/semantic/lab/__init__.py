"""The semantic judge's lab: what builds and evaluates the runtime in the room above, never
imported by it (``tests/test_layering.py`` checks). The labelled corpus and its generators
(``corpus``, whose ``replies.jsonl`` stays out of the installed package: it is read from a
checkout), fitting (``fit``, ``train``, ``grounding_train``), agreement with human data
(``agreement``, ``evaluate``, ``human_check``, ``metrics``) and the ``empa judge`` commands
(``cli``). The shipped weights are pinned by sha256 in the runtime's files, as before.
"""
