"""Languages by code: how text is cut into words and sentences, which words carry no content, and
whether the embedded offline roles can play a case in that language.

A case names its language (``Case.language``); roles and policies that read text look its
:class:`Language` up here (``languages.get("en")()``) instead of keeping word lists of their own.
Another language is one registration (``@languages.register("de")``) or one ``empa.languages``
entry point; the offline roles play it when its ``offline_roles`` is true
(:func:`offline_languages`), and refuse its cases otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.metadata import entry_points

from empa_env.registry import Registry
from empa_env.text import SENTENCE_ENDS, sentence_texts


@dataclass(frozen=True)
class Language:
    """Text handling for one language.

    Attributes:
        code: the case files' ``language`` value (``"en"``, ``"zh"``).
        name: the language's English name, for messages and prompts.
        word_pattern: a regular expression matching one word (lower-cased text).
        stopwords: words that carry no content (for grounding, echo and salience checks).
        sentence_end: characters that end a sentence.
        offline_roles: whether the embedded offline Actor, Director and Judger play cases in
            this language (they play exactly the registered languages where it is true:
            :func:`offline_languages`). Their lines and lexicons are English, read through this
            language's words and sentences: true suits English and its regional variants; when
            false, LLM roles play it (``actor="llm:MODEL"``, ...) and the offline roles refuse
            its cases at ``reset``.
    """

    code: str
    name: str
    word_pattern: re.Pattern[str]
    stopwords: frozenset[str] = field(default_factory=frozenset)
    sentence_end: str = ".!?"
    offline_roles: bool = False

    def words(self, text: str) -> list[str]:
        """The words of ``text``, lower-cased, in order."""
        return self.word_pattern.findall(text.lower())

    def content_words(self, text: str, min_length: int = 1) -> list[str]:
        """The words of ``text`` that are not stopwords (and at least ``min_length`` long)."""
        return [w for w in self.words(text) if w not in self.stopwords and len(w) >= min_length]

    def sentences(self, text: str) -> list[str]:
        """The sentences of ``text`` (the ends kept), cut by the package's one splitter
        (:func:`empa_env.text.sentence_spans`: not after "Dr." or inside "3.5"), with this
        language's own sentence ends added to the built-in ones."""
        return sentence_texts(text, "".join(dict.fromkeys(SENTENCE_ENDS + self.sentence_end)))


#: The entry-point group of language plug-ins.
LANGUAGE_GROUP = "empa.languages"


@lru_cache(maxsize=1)
def _installed_codes() -> frozenset[str]:
    """The codes installed packages declare in :data:`LANGUAGE_GROUP`. Read once per process:
    scanning the installed packages' metadata takes milliseconds, and the environment asks which
    languages the offline roles play at every ``reset``."""
    return frozenset(ep.name for ep in entry_points(group=LANGUAGE_GROUP))


class LanguageRegistry(Registry[Language]):
    """The registry of languages, which also says which of them the offline roles play."""

    def __init__(self, kind: str, group: str | None = None) -> None:
        super().__init__(kind, group)
        #: The last answer of :meth:`offline_codes`, by the registrations it was read from.
        self._offline: tuple[object, tuple[str, ...]] | None = None
        #: The language each code was made into, by the factory that made it.
        self._made: dict[str, tuple[object, Language]] = {}

    def unregister(self, name: str) -> None:
        super().unregister(name)
        self._made.pop(name, None)

    def made(self, code: str) -> Language:
        """The :class:`Language` of ``code``, made once per registered factory (a factory gives the
        same language each time it is called; every word of every text asks for its language)."""
        kept = self._made.get(code)
        if kept is not None and self._factories.get(code) is kept[0]:
            return kept[1]
        made = self.create(code)
        factory = self._factories.get(code)  # an entry point's factory registers on first use
        if factory is not None:
            self._made[code] = (factory, made)
        return made

    def offline_codes(self) -> tuple[str, ...]:
        """The codes of the registered languages whose :attr:`Language.offline_roles` is true,
        sorted. Read from the registrations when asked, so a language registered later (in code,
        or by an entry point of a package installed before the process started) counts; a
        plug-in that fails to load raises its :class:`~empa_env.registry.RegistryError` here.
        The answer is kept until the registrations change (a factory gives the same language
        each time it is called)."""
        registered = (tuple(self._factories.items()), _installed_codes())
        if self._offline is not None and self._offline[0] == registered:
            return self._offline[1]
        codes = sorted(set(self._factories) | _installed_codes())
        found = tuple(code for code in codes if self.create(code).offline_roles)
        # creating an entry point's language registers its factory: key on what is there now
        self._offline = ((tuple(self._factories.items()), _installed_codes()), found)
        return found


languages: LanguageRegistry = LanguageRegistry("language", LANGUAGE_GROUP)

ENGLISH_STOPWORDS = frozenset(
    (
        "a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
        "be", "because", "been", "being", "but", "by", "can", "could", "did", "do", "does", "doing",
        "don't", "down", "even", "for", "from", "get", "got", "had", "has", "have", "he", "her", "here",
        "him", "his", "how", "i", "i'm", "i've", "if", "in", "into", "is", "it", "it's", "its", "just",
        "know", "like", "me", "more", "much", "my", "no", "not", "now", "of", "off", "on", "one",
        "only", "or", "our", "out", "over", "really", "said", "same", "say", "she", "so", "some",
        "still", "such", "than", "that", "that's", "the", "their", "them", "then", "there", "these",
        "they", "thing", "things", "this", "those", "to", "too", "up", "us", "very", "was", "way", "we",
        "were", "what", "when", "where", "which", "while", "who", "why", "will", "with", "would",
        "yeah", "yes", "you", "you're", "your", "okay", "ok", "well", "maybe", "something", "lot",
        "want", "make", "makes", "made", "going", "gonna", "time", "right"
    )
)  # fmt: skip


@languages.register("en")
def english() -> Language:
    """English: the language of the shipped suite and of the offline roles."""
    return Language(
        code="en",
        name="English",
        # letters of any Latin-script language (a French or Turkish word is one word, not pieces)
        word_pattern=re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|[0-9]+"),
        stopwords=ENGLISH_STOPWORDS,
        offline_roles=True,
    )


@languages.register("zh")
def chinese() -> Language:
    """Chinese: each Han character is a word; played by LLM roles (the official EMPA cases)."""
    return Language(
        code="zh",
        name="Chinese",
        word_pattern=re.compile(r"[\u4e00-\u9fff]|[a-z0-9]+"),
        stopwords=frozenset(
            [
                "的",
                "了",
                "是",
                "我",
                "你",
                "他",
                "她",
                "在",
                "和",
                "也",
                "就",
                "都",
                "吗",
                "呢",
                "吧",
                "啊",
            ]
        ),
        sentence_end="。！？.!?",
        offline_roles=False,
    )


def language(code: str) -> Language:
    """The :class:`Language` registered as ``code`` (clear error listing the known ones)."""
    return languages.made(code)


def base_code(code: str) -> str:
    """The language of a code without its region or script (its BCP 47 primary subtag, lower
    case): ``"en-GB"`` -> ``"en"``."""
    return code.split("-")[0].lower()


def offline_languages() -> tuple[str, ...]:
    """The case languages the embedded offline Actor, Director and Judger play: the registered
    languages with ``offline_roles=True`` (:meth:`LanguageRegistry.offline_codes`)."""
    return languages.offline_codes()


__all__ = [
    "ENGLISH_STOPWORDS", "LANGUAGE_GROUP", "Language", "LanguageRegistry", "base_code",
    "language", "languages", "offline_languages",
]  # fmt: skip
