"""The one text layer: how every part of the simulation reads a reply.

A person reads "You are \u0440athetic" (a Cyrillic letter), "path\u200detic" (a zero-width
joiner), "bur\u00adden" (a soft hyphen), full-width letters or "p a t h e t i c" as the words they
show. Patterns that match raw text do not; so everything that matches words or patterns on a reply
(the guards, the offline roles, the scripted baselines) reads its :func:`reading_form` instead:

1. Unicode compatibility forms folded (NFKC: full-width, ligatures, styled letters);
2. invisible and format characters removed (zero-width joiners and spaces, soft hyphens, bidi
   marks, variation selectors) and combining marks stacked on Latin letters dropped;
3. letters that look Latin in another script (Cyrillic, Greek, Armenian) folded to Latin inside a
   word that is written in Latin letters or only in such look-alikes (a Russian word keeps its
   letters);
4. digits and symbols standing for letters inside a word ("l0ser", "1diot", "p@thetic") read as
   the letters;
5. letters spaced or dotted apart ("p a t h e t i c", "l.o.s.e.r") joined, and a letter repeated
   three or more times read once ("pathetiiic");
6. curly quotes and apostrophes read as straight ones.

:class:`Reading` keeps, for each character of the reading form, the index of the source character
it came from, so a span found in the reading form maps back to a verbatim quote of the reply.

Sentences are cut once, here (:func:`sentence_spans`): after ``.``, ``!``, ``?`` (and their CJK
forms) and at line breaks, except after common abbreviations ("Mrs.", "Dr.", "Ph.D.", "e.g."),
inside a number ("3.5") and inside a quotation that is still open.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from empa_env.bounded_cache import lru_bytes, text_weight

#: Letters of other scripts that read as a Latin letter.
CONFUSABLES: dict[str, str] = {
    # Cyrillic
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0443": "y",
    "\u0445": "x", "\u0456": "i", "\u0458": "j", "\u0455": "s", "\u0501": "d", "\u04bb": "h",
    "\u04cf": "l", "\u051b": "q", "\u0475": "v", "\u051d": "w", "\u0410": "A", "\u0412": "B",
    "\u0415": "E", "\u041a": "K", "\u041c": "M", "\u041d": "H", "\u041e": "O", "\u0420": "P",
    "\u0421": "C", "\u0422": "T", "\u0425": "X", "\u0406": "I", "\u0408": "J", "\u0405": "S",
    "\u0491": "r", "\u0432": "b", "\u043a": "k", "\u043c": "m", "\u043d": "h", "\u0442": "t",
    # Greek
    "\u03b1": "a", "\u03bf": "o", "\u03b9": "i", "\u03bd": "v", "\u03c1": "p", "\u03c4": "t",
    "\u03ba": "k", "\u03c5": "u", "\u03c7": "x", "\u03b5": "e", "\u0391": "A", "\u0392": "B",
    "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I", "\u039a": "K", "\u039c": "M",
    "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X",
    # Armenian, Latin variants
    "\u0578": "n", "\u0585": "o", "\u0561": "w", "\u0261": "g", "\u0131": "i", "\u0251": "a",
}  # fmt: skip

#: Digits and symbols that stand for letters inside a word.
LEET: dict[str, str] = {
    "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i",
}  # fmt: skip

QUOTES = {"\u2019": "'", "\u2018": "'", "\u201b": "'", "\u2032": "'", "`": "'", "\u00b4": "'",
          "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"'}  # fmt: skip

#: Abbreviations whose final dot does not end a sentence (lower-case, without the dot).
ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "jr",
        "sr",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "ph.d",
        "a.m",
        "p.m",
        "u.s",
        "u.k",
        "approx",
        "dept",
        "fig",
        "vol",
    ]
)

_WORD_CHARS = re.compile(r"[^\W_]+(?:['\-][^\W_]+)*|[^\s\w]", re.UNICODE)
_SPACED_LETTERS = re.compile(r"(?<![^\W\d_])(?:[^\W\d_][ .\-*_]){3,}[^\W\d_](?![^\W\d_])")
_REPEATS = re.compile(r"([^\W\d_])\1{2,}")


@dataclass(frozen=True)
class Reading:
    """A reply in its reading form. ``source[i]`` is the index in the original text of the
    character ``text[i]`` came from."""

    original: str
    text: str
    #: ``None`` when the reading form is the original itself (plain text: no offsets to keep).
    source: tuple[int, ...] | None

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original-text span of the reading-form span ``[start, end)``."""
        if not self.text or end <= start:
            return (0, 0)
        if self.source is None:
            return (start, min(end, len(self.text)))
        a = self.source[min(start, len(self.source) - 1)]
        b = self.source[min(end, len(self.source)) - 1] + 1
        return (a, b)

    def quote(self, start: int, end: int) -> str:
        """The verbatim original text under the reading-form span ``[start, end)``."""
        a, b = self.span(start, end)
        return self.original[a:b]


def _invisible(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat == "Cf" or ("\ufe00" <= ch <= "\ufe0f") or ch in "\u034f\u115f\u1160\u3164"


def _symbol(ch: str) -> bool:
    """A pictograph or symbol that is no letter, digit or punctuation (emoji, dingbats)."""
    return unicodedata.category(ch) in ("So", "Sk") or 0x1F000 <= ord(ch) <= 0x1FAFF


def _fold_word(chars: list[tuple[str, int]], latin_text: bool) -> list[tuple[str, int]]:
    """Fold look-alike letters and letter-standing symbols inside one word. A word written only
    in look-alikes is folded only in a text that is mostly Latin (a Russian "как" stays)."""
    letters = [c for c, _ in chars if c.isalpha()]
    if not letters:
        return chars
    latin = sum(1 for c in letters if c.isascii())
    foldable = sum(1 for c in letters if c in CONFUSABLES)
    if latin or (latin_text and foldable == len(letters)):
        chars = [(CONFUSABLES.get(c, c), i) for c, i in chars]
    # symbols/digits between letters: "l0ser", "p@thetic", "1diot" (not "2nd", "3pm", "100")
    alpha = sum(1 for c, _ in chars if c.isalpha())
    if (
        alpha >= 2
        and any(c in LEET for c, _ in chars)
        and not chars[0][0].isdigit()
        or (alpha >= 3 and chars[0][0] in "1@$" and len(chars) >= 4)
    ):
        chars = [(LEET.get(c, c), i) for c, i in chars]
    return chars


#: A symbol or digit touching a letter, or a backtick: ASCII text that may need folding.
_LETTER_SYMBOLS = re.compile(r"[A-Za-z][0-9@$!`]|[0-9@$`][A-Za-z]")


#: Curly quotes and apostrophes read as straight ones, character for character.
_QUOTE_TABLE = str.maketrans(QUOTES)


def _nothing_to_fold(ascii_text: str) -> bool:
    """Whether the folds of :func:`_fold` leave this ASCII text as it is."""
    return (
        not _LETTER_SYMBOLS.search(ascii_text)
        and not _SPACED_LETTERS.search(ascii_text)
        and not _REPEATS.search(ascii_text)
    )


@lru_bytes(16 << 20, text_weight(per_char=12))
def _reading(text: str) -> Reading:
    if text.isascii():
        if _nothing_to_fold(text):
            return Reading(text, text, None)
    else:
        # ASCII but for curly quotes (most prose): the quotes straightened one for one, so the
        # offsets stay those of the original
        straight = text.translate(_QUOTE_TABLE)
        if straight.isascii() and _nothing_to_fold(straight):
            return Reading(text, straight, None)
    return _fold(text)


def _fold(text: str) -> Reading:
    """The reading form, character by character (steps 1-6 of the module docstring)."""
    # 1-2: per source character, NFKC and drop the invisible ones (offsets kept).
    chars: list[tuple[str, int]] = []
    for i, ch in enumerate(text):
        if _invisible(ch):
            continue
        if ch in QUOTES:
            chars.append((QUOTES[ch], i))
            continue
        folded = unicodedata.normalize("NFKC", ch) if not ch.isascii() else ch
        for f in folded:
            if unicodedata.category(f) == "Mn" and chars and chars[-1][0].isascii():
                continue  # a combining mark stacked on a Latin letter
            chars.append((QUOTES.get(f, f), i))
    # a symbol or emoji wedged inside a word ("p\U0001f642athetic") is read through, as a person does
    chars = [
        c
        for k, c in enumerate(chars)
        if not (
            0 < k < len(chars) - 1
            and _symbol(c[0])
            and chars[k - 1][0].isalpha()
            and chars[k + 1][0].isalpha()
        )
    ]
    letters = [c for c, _ in chars if c.isalpha()]
    latin_text = sum(1 for c in letters if c.isascii() or c in CONFUSABLES) > 0.5 * len(letters)
    latin_text = latin_text and sum(1 for c in letters if c.isascii()) > 0.3 * len(letters)
    # 3-4: word by word (a word: letters, digits and the symbols that stand for letters).
    out: list[tuple[str, int]] = []
    word: list[tuple[str, int]] = []
    for c, i in chars:
        if c.isalnum() or c in "@$":
            word.append((c, i))
            continue
        if c == "!" and word and word[-1][0].isalpha():
            # "!" inside a word ("st!pid") stands for a letter; at a word's end it is punctuation
            word.append((c, i))
            continue
        out.extend(_flush(word, latin_text))
        word = []
        out.append((c, i))
    out.extend(_flush(word, latin_text))
    folded_text = "".join(c for c, _ in out)
    source = [i for _, i in out]
    # 5: letters spaced apart and letters repeated three or more times.
    for pattern, keep in ((_SPACED_LETTERS, _letters_only), (_REPEATS, _first_only)):
        if not pattern.search(folded_text):
            continue
        pieces: list[str] = []
        src: list[int] = []
        last = 0
        for m in pattern.finditer(folded_text):
            pieces.append(folded_text[last : m.start()])
            src.extend(source[last : m.start()])
            kept = keep(m.start(), m.group(0))
            pieces.append("".join(folded_text[j] for j in kept))
            src.extend(source[j] for j in kept)
            last = m.end()
        pieces.append(folded_text[last:])
        src.extend(source[last:])
        folded_text, source = "".join(pieces), src
    return Reading(text, folded_text, tuple(source))


def _flush(word: list[tuple[str, int]], latin_text: bool) -> list[tuple[str, int]]:
    """One word folded; trailing "!" stay punctuation after it."""
    n = len(word)
    while n and word[n - 1][0] == "!":
        n -= 1
    return _fold_word(word[:n], latin_text) + word[n:]


def _letters_only(start: int, chunk: str) -> list[int]:
    return [start + k for k, ch in enumerate(chunk) if ch.isalpha()]


def _first_only(start: int, chunk: str) -> list[int]:
    return [start]


def reading_form(text: str) -> Reading:
    """``text`` as a person reads it (see the module docstring), with offsets to the original."""
    return _reading(text)


def read(text: str) -> str:
    """Just the reading form of ``text``."""
    return _reading(text).text


# ------------------------------------------------------------------------------------------------
# Sentences
# ------------------------------------------------------------------------------------------------
_ENDS = ".!?\u3002\uff01\uff1f\u2026"
#: The sentence ends of every built-in language.
SENTENCE_ENDS = _ENDS
_CLOSERS = "\"')]\u201d\u2019\u300d"


def sentence_spans(text: str, ends: str = _ENDS) -> list[tuple[int, int]]:
    """Character spans ``[a, b)`` of the sentences of ``text``: stripped, never empty, each with
    at least one letter or digit; cut after sentence ends (``ends``: those of every built-in
    language; a language plug-in may add its own) and at line breaks, not after an abbreviation,
    inside a number or inside an open quotation. The one sentence splitter of the package."""
    spans: list[tuple[int, int]] = []
    n = len(text)
    start = 0
    i = 0
    in_quote = False
    while i < n:
        ch = text[i]
        if ch in '"\u201c\u201d':
            in_quote = not in_quote if ch == '"' else ch == "\u201c"
        if ch == "\n":
            _add(text, start, i, spans)
            start = i + 1
            in_quote = False
        elif ch in ends:
            j = i
            while j + 1 < n and text[j + 1] in ends:
                j += 1
            k = j
            while k + 1 < n and text[k + 1] in _CLOSERS:
                k += 1
                if text[k] in '"\u201d':
                    in_quote = False
            nxt = text[k + 1] if k + 1 < n else " "
            if ch == "." and j == i and _no_break_after_dot(text, start, i, nxt):
                i = k + 1
                continue
            if in_quote and nxt != "\n":
                i = k + 1
                continue
            if nxt.isspace() or k + 1 >= n or ord(nxt) > 0x2E7F:
                _add(text, start, k + 1, spans)
                start = k + 1
            i = k + 1
            continue
        i += 1
    _add(text, start, n, spans)
    return spans


def _no_break_after_dot(text: str, start: int, i: int, nxt: str) -> bool:
    if nxt.isdigit() or (nxt.isalpha() and nxt.islower()):
        return True  # "3.5", "e.g", a dot inside a word
    m = re.search(r"((?:[A-Za-z]+\.)*[A-Za-z]+)$", text[start:i])
    return m is not None and m.group(1).lower() in ABBREVIATIONS


def _add(text: str, a: int, b: int, spans: list[tuple[int, int]]) -> None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if b > a and any(ch.isalnum() for ch in text[a:b]):
        spans.append((a, b))


def sentence_texts(text: str, ends: str = _ENDS) -> list[str]:
    """The sentences of ``text`` as strings (see :func:`sentence_spans`)."""
    return [text[a:b] for a, b in sentence_spans(text, ends)]


_DISCOURSE = r"(?:(?:so|and|but|ok(?:ay)?|well|also|then|now|hmm+|oh|honestly|just|and so),?\s+)*"
_INTERROGATIVE = re.compile(
    r"^\W*" + _DISCOURSE + r"(?:what|what's|whats|how|how's|hows|why|when|where|who|whom|whose|"
    r"which|do|does|did|don't|doesn't|didn't|is|isn't|are|aren't|was|wasn't|were|weren't|have|"
    r"has|had|haven't|hasn't|can|can't|could|couldn't|would|wouldn't|will|won't|should|"
    r"shouldn't|shall|may|might|am|tell me|say more)\b",
    re.IGNORECASE,
)


def is_interrogative(sentence: str) -> bool:
    """Whether ``sentence`` (one sentence) is a question in form: it ends with a question mark
    and opens, after discourse words ("so", "and", "okay"), with a question word or an inverted
    auxiliary ("What happened?", "So did she call?"). A statement with a question mark ("So
    you're hurt that she left?") is not: it says something about the listener and asks only
    for a yes."""
    text = read(sentence).strip()
    return text.rstrip("\"')] ").endswith("?") and _INTERROGATIVE.match(text) is not None


def without_accents(text: str) -> str:
    """``text`` with the accents taken off its letters ("Siobhán" -> "Siobhan", "mamá" ->
    "mama"); case and everything else kept."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def one_edit_apart(a: str, b: str, swap: bool = False) -> bool:
    """Whether two words are the same or one letter apart (one more, one less or one changed);
    with ``swap``, two neighbouring letters swapped count as one edit too ("freind")."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            swap and len(diff) == 2 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        )
    if len(a) > len(b):
        a, b = b, a
    return any(b[:i] + b[i + 1 :] == a for i in range(len(b)))


__all__ = [
    "ABBREVIATIONS", "CONFUSABLES", "Reading", "SENTENCE_ENDS", "is_interrogative",
    "one_edit_apart", "read", "reading_form", "sentence_spans", "sentence_texts",
    "without_accents",
]  # fmt: skip
