"""The component libraries: typed, internally consistent, and every template renders."""

from __future__ import annotations

import shutil

import pytest

from empa_env.cases.components import (
    LIBRARY_FILES,
    ROLE_WORDS,
    THEMES,
    LibraryError,
    default_library_dir,
    load_library,
    render,
    template_slots,
)
from empa_env.cases.generator import PersonName, persona_slots, role_slots
from empa_env.cases.schema import DOMAINS


@pytest.fixture(scope="module")
def library():
    return load_library()


def _all_slots(library, gender: str) -> dict[str, str]:
    occ = next(o for o in library.occupations if o.kind == "worker")
    slots = persona_slots(PersonName("Ana", "Silva", gender), 40, "Lisbon", "Recife", occ)
    for i, role in enumerate(ROLE_WORDS):
        slots.update(role_slots(role, f"Name{i}", "female" if i % 2 else "male"))
    return slots


def test_library_files_are_all_present():
    directory = default_library_dir()
    assert all((directory / name).is_file() for name in LIBRARY_FILES)


def test_library_covers_every_domain_theme_and_accessibility_level(library):
    for domain in DOMAINS:
        assert len(library.situations_in(domain)) >= 5, domain
    for theme in THEMES:
        assert sum(theme in b.themes for b in library.backstories.childhood) >= 2
        assert sum(theme in b.themes for b in library.backstories.adolescence) >= 2
        assert any(p.theme == theme for p in library.patterns)
    for level in range(4):
        assert sum(level in s.accessibility for s in library.styles) >= 2
    assert len(library.cultures) >= 10 and len(library.occupations) >= 20


def test_voice_material_is_plentiful(library):
    for style in library.styles:
        for stance in ("guarded", "neutral", "opening_up", "hurt"):
            lines = getattr(style.reactions, stance)
            assert len(lines) >= 8 and len(set(lines)) == len(lines), (style.id, stance)
    for sit in library.situations:
        assert len(sit.details) >= 6 and len(set(sit.details)) == len(sit.details), sit.id
        assert len(sit.openings) >= 3, sit.id


@pytest.mark.parametrize("gender", ["female", "male", "non-binary"])
def test_every_template_renders_with_the_generator_slots(library, gender):
    slots = _all_slots(library, gender)
    used: set[str] = set()
    for where, text in library.templates():
        used |= template_slots(text)
        out = render(text, slots, where)
        assert "{" not in out and "}" not in out, (where, out)
    assert {"name", "their", "workplace", "partner", "partner_he"} <= used


def test_render_capitalises_a_slot_that_starts_a_sentence():
    slots = {"boss": "the head chef", "name": "Ana"}
    assert (
        render("{boss} said no. {boss} left.", slots)
        == "The head chef said no. The head chef left."
    )
    assert render('"{boss} says hi"', slots) == '"The head chef says hi"'
    assert render("I told {boss}.", slots) == "I told the head chef."


def test_render_names_an_unknown_slot():
    with pytest.raises(LibraryError, match=r"situations\[3\].vent: unknown slot \{colleague\}"):
        render("{colleague} took it", {"name": "Ana"}, "situations[3].vent")


def test_a_broken_library_file_is_reported_with_file_and_field(tmp_path):
    broken = tmp_path / "library"
    shutil.copytree(
        default_library_dir(), broken, ignore=shutil.ignore_patterns("*.py", "__pycache__")
    )
    styles = broken / "styles.yaml"
    styles.write_text(
        styles.read_text(encoding="utf-8").replace(
            "accessibility: [0, 1]", "accessibility: [0, 7]", 1
        )
    )
    with pytest.raises(LibraryError) as err:
        load_library(broken)
    assert str(broken) in str(err.value) and "accessibility" in str(err.value)


def test_library_invariants_are_enforced(tmp_path):
    broken = tmp_path / "library"
    shutil.copytree(
        default_library_dir(), broken, ignore=shutil.ignore_patterns("*.py", "__pycache__")
    )
    (broken / "situations_leisure.yaml").write_text("[]\n", encoding="utf-8")
    with pytest.raises(LibraryError, match="domain 'leisure' has no situation"):
        load_library(broken)
