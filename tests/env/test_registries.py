"""Every plug-in point is a registry: one file (or one registration) adds a backend, a reward, a
suite or a policy kind, and nothing dispatches on strings."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
import yaml

from empa_env import EMPAEnv
from empa_env.backends import judgers, resolve_role, rewards
from empa_env.cases.suites import _REGISTERED, available_suites, load_suite, register_suite
from empa_env.languages import language
from empa_env.offline.judger import LexiconJudger
from empa_env.policy import PolicySpecError, load_policy
from empa_env.registry import Registry, RegistryError, provenance, sources_digest
from epm.trajectory import Judgement

SUITE_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "suites" / "empa30-v1"

JUDGE_FILE = textwrap.dedent(
    """
    from empa_env.roles.base import Judger
    from epm.trajectory import Judgement


    class AlwaysClarifies(Judger):
        name = "always-clarifies"

        def judge(self, view):
            zeros = {"C": 0, "A": 0, "P": 0}
            return Judgement(
                prog={"C": 1, "A": 0, "P": 0}, neg=dict(zeros),
                evidence={"C_Prog": view.reply}, reasoning={"C_Prog": "test"},
                judge=self.name,
            )
    """
)


def test_a_judge_in_one_file_needs_no_edit_elsewhere(tmp_path):
    path = tmp_path / "my_judge.py"
    path.write_text(JUDGE_FILE, encoding="utf-8")
    env = EMPAEnv("empa30-v1", judger=f"python:{path}:AlwaysClarifies", max_turns=12)
    env.reset(seed=0)
    _, _, _, _, info = env.step("What do you mean by that?")
    assert (
        info["levels"]["C_Prog"] == 1 and info["evidence"]["C_Prog"] == "What do you mean by that?"
    )
    judge_id = env.describe()["roles"]["judger"]
    assert judge_id["class"] == "AlwaysClarifies"
    assert judge_id["spec"] == {
        "registry": "judger backend",
        "name": "python",
        "argument": f"{path}:AlwaysClarifies",
        # the file's content identifies it too: an edited file is another configuration
        "source_sha256": sources_digest(tmp_path, [path]),
    }


def test_registered_judge_by_name_and_provenance():
    @judgers.register("test-silent", replace=True)
    class Silent(LexiconJudger):
        def judge(self, view):
            return Judgement.failure("silent by design", judge="silent")

    try:
        role = resolve_role("judger", "test-silent")
        assert isinstance(role, Silent)
        assert provenance(role).name == "test-silent"
        env = EMPAEnv("empa30-v1", judger="test-silent", max_turns=12)
        env.reset(seed=0)
        info = env.step("Hello")[-1]
        assert info["judge_failed"] and info["judge_error"] == "silent by design"
    finally:
        judgers.unregister("test-silent")


def test_unknown_names_list_what_is_known():
    with pytest.raises(
        RegistryError, match="unknown judger backend 'nope'; known: .*lexicon.*offline"
    ):
        resolve_role("judger", "nope")
    with pytest.raises(PolicySpecError, match="unknown policy kind 'nokind'.*python"):
        load_policy("nokind:x")
    with pytest.raises(RegistryError, match="already registered"):
        registry: Registry[object] = Registry("thing")
        registry.register("a", object)
        registry.register("a", dict)


def test_reward_by_registration():
    @rewards.register("test-constant", replace=True)
    def constant() -> object:
        return lambda p_prev, p_next: 0.25

    try:
        env = EMPAEnv("empa30-v1", reward="test-constant", max_turns=12)
        env.reset(seed=0)
        assert env.step("I hear you.")[1] == 0.25
    finally:
        rewards.unregister("test-constant")


def test_a_suite_is_a_folder(tmp_path):
    folder = tmp_path / "mini-v1"
    (folder / "cases").mkdir(parents=True)
    manifest = yaml.safe_load((SUITE_DIR / "manifest.yaml").read_text(encoding="utf-8"))
    keep = manifest["cases"][:3]
    for entry in keep:
        shutil.copy(SUITE_DIR / "cases" / f"{entry['id']}.yaml", folder / "cases")
    (folder / "manifest.yaml").write_text(
        yaml.safe_dump({"suite": "mini-v1", "version": 1, "cases": keep}), encoding="utf-8"
    )
    try:
        assert register_suite(folder) == "mini-v1"
        assert "mini-v1" in available_suites()
        assert [c.id for c in load_suite("mini-v1").cases] == [e["id"] for e in keep]
        env = EMPAEnv("mini-v1")
        assert len(env.cases) == 3
    finally:
        _REGISTERED.pop("mini-v1", None)
        load_suite.cache_clear()


def test_languages_are_registered():
    en, zh = language("en"), language("zh")
    assert en.offline_roles and not zh.offline_roles
    assert en.content_words("I lost my job and I feel stuck.") == ["lost", "job", "feel", "stuck"]
    assert zh.words("我很难过") == ["我", "很", "难", "过"]
    assert zh.sentences("我很难过。你呢？") == ["我很难过。", "你呢？"]
    # the package's one splitter: not after "Dr.", not inside a number
    assert en.sentences("Dr. Lin was proud of me. I lost 3.5 kilos!") == [
        "Dr. Lin was proud of me.",
        "I lost 3.5 kilos!",
    ]
