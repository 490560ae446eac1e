"""Every plug-in given by file (``python:FILE.py:NAME``: policies, judges, Actors, Directors,
rewards) is identified by its content as well as its name: an edited file is another
configuration, refused in the same run directory like any other change."""

from __future__ import annotations

import sys
from pathlib import Path

from empa_env.backends import describe_role, judgers, rewards
from empa_env.cli import main
from empa_env.policy import describe_policy, load_policy
from empa_env.registry import plugin_sources, sources_digest

JUDGE = """
from empa_env.offline.judger import LexiconJudger


class MyJudge(LexiconJudger):
    name = "my-judge"
    VERSION = {version}
"""

POLICY = """
from empa_env.policy import Policy


class Mine(Policy):
    name = "mine"

    def reply(self, messages):
        return {text!r}
"""

REWARD = """
def make(**kwargs):
    def reward(p_prev, p_next):
        return {value}
    return reward
"""


def _bench(out, *extra: str) -> int:
    return main(
        ["bench", "--quiet", "--no-report", "--limit", "1", "--max-turns", "12", "--out", str(out),
         *extra]
    )  # fmt: skip


def test_a_role_file_is_identified_by_its_content_and_runs_its_new_content(tmp_path):
    path = tmp_path / "my_judge.py"
    path.write_text(JUDGE.format(version=1), encoding="utf-8")
    first = judgers.create(f"python:{path}:MyJudge")
    spec = describe_role(first)["spec"]
    assert spec["source_sha256"] == sources_digest(tmp_path, [path])  # alone in its folder
    path.write_text(JUDGE.format(version=2), encoding="utf-8")
    second = judgers.create(f"python:{path}:MyJudge")
    assert describe_role(second)["spec"]["source_sha256"] != spec["source_sha256"]
    # the same process runs the edited file, never a stale module of the first content
    assert type(first).VERSION == 1 and type(second).VERSION == 2


def test_rewards_and_policy_classes_by_file_carry_their_digest(tmp_path):
    reward_file = tmp_path / "my_reward.py"
    reward_file.write_text(REWARD.format(value=1.0), encoding="utf-8")
    reward = rewards.create(f"python:{reward_file}:make")
    assert describe_role(reward)["spec"]["source_sha256"].startswith("sha256:")
    policy_file = tmp_path / "mine.py"
    policy_file.write_text(POLICY.format(text="hello"), encoding="utf-8")
    before = describe_policy(load_policy(f"python:{policy_file}:Mine"))
    policy_file.write_text(POLICY.format(text="hello there"), encoding="utf-8")
    after = describe_policy(load_policy(f"python:{policy_file}:Mine"))
    assert before["source_sha256"] != after["source_sha256"]
    # an installed module is identified by its name, as before
    assert "source_sha256" not in describe_role(judgers.create("lexicon")).get("spec", {})


def test_an_edited_judge_file_is_refused_in_the_same_run_directory(tmp_path, capsys):
    path = tmp_path / "my_judge.py"
    path.write_text(JUDGE.format(version=1), encoding="utf-8")
    args = ("--judger", f"python:{path}:MyJudge", "--policy", "scripted:advice_giver")
    out = tmp_path / "run"
    assert _bench(out, *args) == 0
    assert _bench(out, *args) == 0  # the same file resumes (nothing left to play)
    path.write_text(JUDGE.format(version=2), encoding="utf-8")
    capsys.readouterr()
    assert _bench(out, *args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and "another configuration" in err[-1]
    assert "source_sha256" in err[-1]


def test_an_edited_policy_class_file_is_refused_in_the_same_run_directory(tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_text(POLICY.format(text="That sounds hard. What happened?"), encoding="utf-8")
    out = tmp_path / "run"
    assert _bench(out, "--policy", f"python:{path}:Mine") in (0, 1)
    path.write_text(POLICY.format(text="Tell me more about it."), encoding="utf-8")
    capsys.readouterr()
    assert _bench(out, "--policy", f"python:{path}:Mine") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: policy name 'mine' is already used")


# --- the code a plug-in comes with ------------------------------------------------------------
JUDGE_WITH_HELPER = """
from judge_helpers import BONUS
from empa_env.offline.judger import LexiconJudger


class HelpedJudge(LexiconJudger):
    name = "helped"
    VERSION = BONUS
"""


def test_an_edited_module_beside_a_judge_file_is_refused_in_the_same_run_directory(
    tmp_path, capsys, monkeypatch
):
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "judge_helpers.py").write_text("BONUS = 1\n", encoding="utf-8")
    path = plugins / "my_judge.py"
    path.write_text(JUDGE_WITH_HELPER, encoding="utf-8")
    monkeypatch.syspath_prepend(str(plugins))  # how the file finds the module beside it
    monkeypatch.delitem(sys.modules, "judge_helpers", raising=False)
    args = ("--judger", f"python:{path}:HelpedJudge", "--policy", "scripted:advice_giver")
    out = tmp_path / "run"
    assert _bench(out, *args) == 0
    assert _bench(out, *args) == 0  # nothing changed: resumes
    (plugins / "judge_helpers.py").write_text("BONUS = 2\n", encoding="utf-8")
    capsys.readouterr()
    assert _bench(out, *args) == 2  # the judge file is the same, the code it imports is not
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and "another configuration" in err[-1], err
    assert "source_sha256" in err[-1]


def test_a_module_policy_is_identified_by_its_package_files(tmp_path, monkeypatch):
    package = tmp_path / "my_policies"
    (package / "util").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "util" / "__init__.py").write_text("", encoding="utf-8")
    (package / "util" / "words.py").write_text("TEXT = 'That sounds hard.'\n", encoding="utf-8")
    (package / "core.py").write_text(
        "from my_policies.util.words import TEXT\n\n\ndef reply(messages):\n    return TEXT\n",
        encoding="utf-8",
    )
    (package / "Mine.py").write_text(POLICY.format(text="hello"), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("my_policies")]:
        monkeypatch.delitem(sys.modules, name)
    function = describe_policy(load_policy("python:my_policies.core:reply"))
    instance = describe_policy(load_policy("python:my_policies.Mine:Mine"))
    (package / "util" / "words.py").write_text("TEXT = 'Tell me more.'\n", encoding="utf-8")
    assert describe_policy(load_policy("python:my_policies.core:reply")) != function
    assert describe_policy(load_policy("python:my_policies.Mine:Mine")) != instance


def test_what_a_plugin_comes_with(tmp_path):
    folder = tmp_path / "plugins"
    (folder / "helpers").mkdir(parents=True)
    (folder / "other").mkdir()
    (folder / ".hidden").mkdir()
    for name in ("mine.py", "sibling.py", "helpers/__init__.py", "helpers/deep.py",
                 "other/not_a_package.py", ".hidden/x.py", "notes.txt"):  # fmt: skip
        (folder / name).write_text("", encoding="utf-8")
    root, files = plugin_sources(folder / "mine.py")
    names = sorted(p.relative_to(root).as_posix() for p in files)
    assert root == folder.resolve()
    assert names == ["helpers/__init__.py", "helpers/deep.py", "mine.py", "sibling.py"]
    # a file inside a package: its top-level package's files, at any depth
    root, files = plugin_sources(folder / "helpers" / "deep.py")
    assert [p.relative_to(root).as_posix() for p in files] == [
        "helpers/__init__.py", "helpers/deep.py"
    ]  # fmt: skip
    # an installed single-file module: its neighbours are other distributions, not its code
    import typing_extensions

    installed = Path(typing_extensions.__file__)
    assert plugin_sources(installed) == (installed.parent.resolve(), [installed.resolve()])
