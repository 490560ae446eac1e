"""The one reading of a reply, shared by the offline judge and the offline user.

A reply is cut into sentences once and its words once (:mod:`empa_env.reading.tokens`); each
sentence is read for its language (:mod:`~empa_env.reading.language`), its acts
(:mod:`~empa_env.reading.acts`) and what it speaks about among the people, feelings, amounts and
events the user told (:mod:`~empa_env.reading.world`), by meaning: lemmas and inflection
(LemmInflect), a shipped table of word meanings (:mod:`~empa_env.reading.lexicon`), relations
that name the same person, number words. :func:`read_reply` returns the whole reading.
"""

from empa_env.reading.reply import Misreading, ReplyReading, SentenceReading, read_reply
from empa_env.reading.world import Reference, UserWorld, user_world

__all__ = [
    "Misreading", "Reference", "ReplyReading", "SentenceReading", "UserWorld", "read_reply",
    "user_world",
]  # fmt: skip
