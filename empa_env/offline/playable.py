"""The case languages the offline roles play, as the role contract declares them.

The offline Actor, Director and Judger play exactly the registered languages whose
:attr:`~empa_env.languages.Language.offline_roles` is true (:func:`empa_env.languages.offline_languages`),
read from the registry each time it is asked, so a language a plug-in registers later counts.
Their ``languages`` attribute (:class:`~empa_env.roles.PlaysLanguages`) says so, and the
environment refuses another language's case at ``reset``; the Actor refuses it by itself too.
"""

from __future__ import annotations

from empa_env.languages import language, offline_languages


class UnsupportedCaseLanguage(ValueError):
    """An offline role was given a case in a language it cannot play."""


def offline_languages_named() -> str:
    """The offline roles' languages for a message: ``"English (en), British English (en-GB)"``."""
    return ", ".join(f"{language(code).name} ({code})" for code in offline_languages())


def refuse_unsupported_language(role: str, case_id: str, code: str) -> None:
    """Raise one clear line naming the LLM alternative when the offline roles do not play
    ``code``."""
    if code not in offline_languages():
        raise UnsupportedCaseLanguage(
            f"the offline {role} plays cases in {offline_languages_named()} only, and case "
            f"{case_id!r} is in {code!r}; use an LLM {role} instead ({role}='llm:MODEL', e.g. "
            f"`empa bench --{role} llm:openai/gpt-4o-mini`)"
        )


class PlaysOfflineLanguages:
    """Mixin of the offline roles: their ``languages`` (:class:`~empa_env.roles.PlaysLanguages`)
    are the registry's offline languages at the time of asking."""

    @property
    def languages(self) -> tuple[str, ...]:
        """The case languages this role plays: :func:`~empa_env.languages.offline_languages`."""
        return offline_languages()


__all__ = [
    "PlaysOfflineLanguages", "UnsupportedCaseLanguage", "offline_languages_named",
    "refuse_unsupported_language",
]  # fmt: skip
