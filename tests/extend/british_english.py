"""A new language the offline roles play, in one file: British English, English's words,
stopwords and sentence ends under its own code."""

from __future__ import annotations

from dataclasses import replace

from empa_env.languages import Language, english, languages


@languages.register("en-GB", replace=True)
def british_english() -> Language:
    return replace(english(), code="en-GB", name="British English", offline_roles=True)
