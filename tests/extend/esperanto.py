"""A new language in one file: Esperanto's words, stopwords and sentence ends."""

from __future__ import annotations

import re

from empa_env.languages import Language, languages


@languages.register("eo", replace=True)
def esperanto() -> Language:
    return Language(
        code="eo",
        name="Esperanto",
        word_pattern=re.compile(r"[a-zĉĝĥĵŝŭ]+"),
        stopwords=frozenset({"la", "kaj", "de", "en", "mi", "vi", "estas", "ne"}),
        offline_roles=False,
    )
