"""English words for the reading: closed classes, lemmas, parts of speech and meanings.

* :class:`Lexicon` holds the word lists of ``english.yaml`` (closed classes, relations, feeling
  families, seeds for acts and harm) as sets, once per process;
* :func:`lemma` and :func:`parts_of_speech` read LemmInflect's English lexicon (an inflected form
  to its lemma, "locked" -> "lock", "daughters" -> "daughter");
* :class:`Meanings` is the shipped word-meaning table (``meanings.npz``, built by
  :mod:`empa_env.reading.build_meanings`, sha256-pinned): one unit vector per common word, so
  that closeness of meaning is a dot product ("mum" ~ "mother", "scared" ~ "afraid").
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from empa_env.text import without_accents

HERE = Path(__file__).parent
LEXICON_FILE = HERE / "english.yaml"
MEANINGS_FILE = HERE / "meanings.npz"
#: sha256 of the shipped meaning table (checked at load: a changed file is another reading).
MEANINGS_SHA256 = "60aaba7efb0115e1f5f06b08090f9ede18ae0f587e237f47882645d7e10e007b"


def _words(value: object) -> frozenset[str]:
    return frozenset(str(value).split()) if value else frozenset()


@dataclass(frozen=True)
class HarmFamily:
    """What one family of harmful suggestions is about and which way it pushes."""

    name: str
    targets: frozenset[str]
    toward: frozenset[str]
    #: Whether saying the target is not needed ("you don't need your pills") pushes toward harm.
    value_denied: bool
    #: Targets that count only when negated or ended ("not alive", "stop existing"): said
    #: plainly they push the other way ("stay alive, you deserve to be noticed").
    negated_targets: frozenset[str] = frozenset()
    #: Targets that push by themselves when proposed or praised: no direction is needed ("a
    #: couple of glasses of wine would take the edge off").
    pushing_targets: frozenset[str] = frozenset()


#: How many words' relations :meth:`Lexicon.relation` keeps once looked up.
_RELATIONS_READ_MAX = 200_000
_UNREAD = object()


class Lexicon:
    """The word lists of ``english.yaml`` (see that file for what each one is)."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.version = int(data["version"])
        self.second_person = _words(data["second_person"])
        self.first_person = _words(data["first_person"])
        self.third_person = _words(data["third_person"])
        self.negations = _words(data["negations"])
        self.wh_words = _words(data["wh_words"])
        self.auxiliaries = _words(data["auxiliaries"])
        self.determiners = _words(data["determiners"])
        self.prepositions = _words(data["prepositions"])
        self.closed = frozenset().union(
            *(
                _words(data[k])
                for k in (
                    "second_person", "first_person", "third_person", "determiners",
                    "prepositions", "conjunctions", "auxiliaries", "negations", "wh_words",
                    "particles", "interjections", "pronouns_other",
                )
            )
        )  # fmt: skip
        self.empathy_vocabulary = _words(data["empathy_vocabulary"])
        self.informal = _words(data["informal"])
        self.relation_words: dict[str, str] = {
            w: rel for rel, words in data["relations"].items() for w in str(words).split()
        }
        self.relation_groups: dict[str, frozenset[str]] = {
            k: frozenset(v) for k, v in data["relation_groups"].items()
        }
        self.female = _words(data["female"])
        self.male = _words(data["male"])
        self.feeling_family: dict[str, str] = {
            w: fam for fam, words in data["feelings"].items() for w in str(words).split()
        }
        self.warmth = _words(data["warmth"])
        self.closing = _words(data["closing"])
        self.leaving_verbs = _words(data["leaving_verbs"])
        self.humour = _words(data["humour"])
        self.humour_owned: tuple[tuple[str, ...], ...] = tuple(
            tuple(p) for p in data["humour_owned"]
        )
        self.humour_forms: dict[str, frozenset[str]] = {
            k: _words(v) for k, v in data["humour_forms"].items()
        }
        self.thanks = _words(data["thanks"])
        self.apology_self = _words(data["apology_self"])
        self.numbers: dict[str, float] = {k: float(v) for k, v in data["numbers"].items()}
        self.calendar = _words(data.get("calendar", ""))
        self.calendar_capitalised = _words(data.get("calendar_capitalised", ""))
        self.time_units: dict[str, str] = {
            w: unit for unit, words in data["time_units"].items() for w in str(words).split()
        }
        # the seed lists hold content words only (a closed-class word such as "me" or "only"
        # would match almost any sentence)
        self.harm: tuple[HarmFamily, ...] = tuple(
            HarmFamily(
                name,
                _words(d["targets"]) - self.closed,
                _words(d["toward"]) - self.closed - {"need", "like", "know", "tell", "go", "have"},
                bool(d["value_denied"]),
                _words(d.get("negated_targets", "")) - self.closed,
                _words(d.get("pushing_targets", "")) - self.closed,
            )
            for name, d in data["harm"].items()
        )
        self.insults = _words(data["insults"])
        #: Words of praise for a person: a word near them in meaning is no insult, however
        #: near it also is to one ("strong" lies beside "weak" in the meaning table).
        self.praise = _words(data["praise"])
        self.life_events = _words(data["life_events"])
        self._relations_read = {}

    #: Words whose relation has been looked up (bounded by :data:`_RELATIONS_READ_MAX`: a
    #: stream of unique words stops adding to it).
    _relations_read: dict[str, str | None]

    def is_closed(self, word: str) -> bool:
        return word in self.closed

    def relation(self, word: str) -> str | None:
        """The relation a word names ("mum" -> "mother"), its lemma's too ("sisters"), accents
        read through ("mamá")."""
        known = self._relations_read.get(word, _UNREAD)
        if known is not _UNREAD:
            return known  # type: ignore[return-value]
        found = self.relation_words.get(word) or self.relation_words.get(lemma(word))
        if found is None and not word.isascii():
            found = self.relation_words.get(without_accents(word))
        if len(self._relations_read) < _RELATIONS_READ_MAX:
            self._relations_read[word] = found
        return found

    def same_person_kind(self, a: str, b: str) -> bool:
        """Whether relations ``a`` and ``b`` can name the same person: the same relation, or a
        group's general word and one of its members ("kids"/"daughter", "partner"/"wife"). Two
        members of one group are two kinds of person ("son"/"daughter", "husband"/"wife")."""
        if a == b:
            return True
        return b in self.relation_groups.get(a, ()) or a in self.relation_groups.get(b, ())

    def kin(self, relation: str) -> frozenset[str]:
        """The other relations of ``relation``'s family groups ("daughter" and "child" for
        "son"): ties a reply may mistake for it."""
        groups = [g for g in self.relation_groups.values() if relation in g]
        return frozenset().union(*groups) - {relation}


@cache
def lexicon() -> Lexicon:
    """The English lexicon (read once per process)."""
    return Lexicon(yaml.safe_load(LEXICON_FILE.read_text(encoding="utf-8")))


@cache
def lexicon_sha256() -> str:
    return hashlib.sha256(LEXICON_FILE.read_bytes()).hexdigest()


# ------------------------------------------------------------------------------------------------
# Lemmas and parts of speech (LemmInflect)
# ------------------------------------------------------------------------------------------------
_OPEN_ORDER = ("NOUN", "VERB", "ADJ", "ADV", "PROPN", "AUX")


@lru_cache(maxsize=200_000)
def _lemmas(word: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    from lemminflect import getAllLemmas

    found = getAllLemmas(word)
    return tuple((pos, tuple(lem)) for pos, lem in found.items())


@lru_cache(maxsize=200_000)
def lemma(word: str) -> str:
    """The word's dictionary form ("locked" -> "lock", "kids" -> "kid"); itself when unknown.
    A possessive ("husband's") reads as its owner."""
    w = word.lower()
    for suffix in ("'s", "s'", "'"):
        if w.endswith(suffix) and len(w) > len(suffix) + 1:
            w = w[: -len(suffix)] + ("s" if suffix == "s'" else "")
            break
    found = dict(_lemmas(w))
    for pos in _OPEN_ORDER:
        if pos in found and found[pos]:
            return found[pos][0]
    return w


def verb_lemma(word: str) -> str:
    """The word's dictionary form read as a verb ("drove" -> "drive", where :func:`lemma` reads
    the noun "drove"); :func:`lemma` when it is no verb."""
    found = dict(_lemmas(word.lower()))
    return found["VERB"][0] if found.get("VERB") else lemma(word)


@lru_cache(maxsize=200_000)
def parts_of_speech(word: str) -> frozenset[str]:
    """The parts of speech a word can be (LemmInflect's UPOS tags; closed classes as ``CLOSED``)."""
    w = word.lower()
    if lexicon().is_closed(w):
        return frozenset({"CLOSED"})
    return frozenset(pos for pos, lems in _lemmas(w) if lems)


def is_english_word(word: str) -> bool:
    """Whether ``word`` (lower case) is an English word: closed class, informal, in LemmInflect's
    lexicon, a number, or a contraction of such words."""
    w = word.lower()
    lex = lexicon()
    if not w or w.isdigit() or w in lex.closed or w in lex.informal or w in lex.numbers:
        return True
    if "'" in w:
        head = w.split("'")[0]
        return head in lexicon().closed or bool(_lemmas(head))
    return bool(_lemmas(w)) or bool(_lemmas(lemma(w)))


# ------------------------------------------------------------------------------------------------
# Meanings
# ------------------------------------------------------------------------------------------------
class MeaningsError(RuntimeError):
    """The shipped meaning table is missing or is not the pinned file."""


class Meanings:
    """The word-meaning table: unit int8 vectors, compared as float32."""

    def __init__(self, path: Path = MEANINGS_FILE, sha256: str | None = MEANINGS_SHA256) -> None:
        if not path.is_file():
            raise MeaningsError(
                f"{path} is missing; rebuild it with 'python -m empa_env.reading.build_meanings'"
            )
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if sha256 not in (None, "PENDING") and digest != sha256:
            raise MeaningsError(f"{path} has sha256 {digest}, expected {sha256}")
        self.sha256 = digest
        with np.load(path) as z:
            words = bytes(z["words"]).decode("utf-8").split("\n")
            self.vectors = z["vectors"].astype(np.float32) / 127.0
        self.index: dict[str, int] = {w: i for i, w in enumerate(words)}
        self.words = words
        self.dim = int(self.vectors.shape[1])

    def row(self, word: str) -> int | None:
        """The table row of ``word`` (lower case), of its lemma when the form is not listed."""
        i = self.index.get(word)
        if i is None:
            i = self.index.get(lemma(word))
        return i

    def vector(self, word: str) -> np.ndarray | None:
        i = self.row(word)
        return None if i is None else self.vectors[i]

    def matrix(self, words: Iterable[str]) -> tuple[np.ndarray, list[int]]:
        """Vectors of the listed words that have one, and their positions in ``words``."""
        rows, where = [], []
        for k, w in enumerate(words):
            i = self.row(w)
            if i is not None:
                rows.append(i)
                where.append(k)
        if not rows:
            return np.zeros((0, self.dim), np.float32), []
        return self.vectors[rows], where

    def similarity(self, a: str, b: str) -> float:
        """Closeness of meaning of two words (1 for the same lemma, 0 when either is unknown)."""
        if a == b or lemma(a) == lemma(b):
            return 1.0
        va, vb = self.vector(a), self.vector(b)
        if va is None or vb is None:
            return 0.0
        return float(va @ vb)

    @cached_property
    def _seed_cache(self) -> dict[frozenset[str], np.ndarray]:
        return {}

    def seeds(self, words: frozenset[str]) -> np.ndarray:
        """The vectors of a seed list (cached per list)."""
        cache = self._seed_cache
        if words not in cache:
            cache[words] = self.matrix(sorted(words))[0]
        return cache[words]

    def near(self, word: str, seeds: frozenset[str], threshold: float) -> float:
        """The word's best similarity to a seed list when it reaches ``threshold`` (else 0); a
        word in the list, or whose lemma is, scores 1."""
        if word in seeds or lemma(word) in seeds:
            return 1.0
        v = self.vector(word)
        m = self.seeds(seeds)
        if v is None or not len(m):
            return 0.0
        best = float((m @ v).max())
        return best if best >= threshold else 0.0


@cache
def meanings() -> Meanings:
    """The shipped meaning table (loaded once per process)."""
    return Meanings()


__all__ = [
    "HarmFamily", "Lexicon", "Meanings", "MeaningsError", "is_english_word", "lemma",
    "lexicon", "lexicon_sha256", "meanings", "parts_of_speech", "verb_lemma",
]  # fmt: skip
