"""The glue users hit: ``empa train sft`` on ``empa export``'s episodes.jsonl, ``empa train rm``
pairs from a run or an environment, ``--model`` as a Hugging Face id in the local cache."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")
pytest.importorskip("empa_env.env")

from baselines.train_cli import main  # noqa: E402
from baselines.training.hf.data import read_trajectories, run_preference_pairs  # noqa: E402

pytestmark = pytest.mark.train

QUICK = ["--max-steps", "1", "--batch-size", "2", "--no-save"]


def _empa(*args: str) -> None:
    code = "import sys; from empa_env.cli import main; sys.exit(main(sys.argv[1:]))"
    subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True)


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """The trainers here run in this process with one torch thread, as the subprocess below (on a
    busy 2-core machine a second thread mostly spins)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A tiny run: two scripted policies on one case (12 turns, lexicon judger), exported (no
    HTML report: its figures cost ~6 s of CPU and nothing here reads them)."""
    out = tmp_path_factory.mktemp("run") / "run"
    _empa(
        "bench", "--policy", "scripted:attuned", "--policy", "scripted:lecturer",
        "--case", "empa30-001", "--max-turns", "12", "--judger", "lexicon", "--out", str(out),
        "--no-report",
    )  # fmt: skip
    _empa("export", "--format", "jsonl", str(out))
    assert (out / "episodes.jsonl").exists()
    return out


def _last_json(capsys) -> dict:
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_export_lines_and_run_dirs_read_as_trajectories(run_dir):
    line = json.loads((run_dir / "episodes.jsonl").read_text().splitlines()[0])
    assert "episode_key" in line and "trajectory" in line  # the format that used to fail
    from_file = read_trajectories(run_dir / "episodes.jsonl")
    assert len(from_file) == 2 and all(t.turns for t in from_file)
    assert [len(t.turns) for t in read_trajectories(run_dir)] == [len(t.turns) for t in from_file]
    assert [t.case_id for t in read_trajectories(run_dir)] == [t.case_id for t in from_file]


def test_sft_reads_empa_export_directly(tmp_path, run_dir, capsys):
    argv = ["sft", "--trajectories", str(run_dir / "episodes.jsonl"), *QUICK]
    assert main([*argv, "--output-dir", str(tmp_path)]) == 0
    assert _last_json(capsys)["examples"] == 2


def test_sft_bad_file_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"something": 1}\n')
    with pytest.raises(SystemExit) as err:
        main(["sft", "--trajectories", str(bad), *QUICK, "--output-dir", str(tmp_path)])
    assert err.value.code == 2 and "bad.jsonl:1" in capsys.readouterr().err


def test_run_pairs_rank_replies_at_a_shared_context(run_dir):
    trajectories = read_trajectories(run_dir)
    pairs = run_preference_pairs(trajectories, with_margin=True)
    assert pairs and all(p["margin"] > 0 for p in pairs)
    opening = trajectories[0].transcript()[0]
    assert pairs[0]["prompt"] == [opening]  # both policies answered the same opening


def test_rm_from_run(tmp_path, run_dir, capsys):
    assert main(["rm", "--from-run", str(run_dir), *QUICK, "--output-dir", str(tmp_path)]) == 0
    assert _last_json(capsys)["pairs"] >= 1


def test_rm_from_env(tmp_path, capsys):
    env_kwargs = json.dumps({"max_turns": 12, "judger": "lexicon"})
    argv = ["rm", "--from-env", "EMPA-v14", "--candidates", "2", "--num-cases", "1"]
    argv += ["--env-kwargs", env_kwargs, *QUICK, "--output-dir", str(tmp_path)]
    assert main(argv) == 0
    assert _last_json(capsys)["pairs"] >= 1


def test_rm_needs_exactly_one_source(tmp_path, run_dir, capsys):
    with pytest.raises(SystemExit) as err:
        main(["rm", "--from-run", str(run_dir), "--from-env", "EMPA-v14", *QUICK])
    assert err.value.code == 2 and "exactly one of" in capsys.readouterr().err


def test_model_id_absent_from_the_cache_is_one_line(tmp_path, run_dir, capsys):
    argv = ["sft", "--trajectories", str(run_dir), "--model", "nobody/no-such-model-xyz"]
    with pytest.raises(SystemExit) as err:
        main([*argv, *QUICK, "--output-dir", str(tmp_path)])
    lines = capsys.readouterr().err.strip().splitlines()
    assert err.value.code == 2 and "local cache" in lines[-1]


def test_model_id_present_in_the_cache_loads(tmp_path, run_dir, capsys, monkeypatch):
    """A Hugging Face cache laid out by hand (models--ORG--NAME/snapshots/REV, refs/main), found
    where ``HF_HUB_CACHE`` points (huggingface_hub reads the variable once, at import, into
    ``constants.HF_HUB_CACHE``, which every lookup reads: set here in this process; the session
    is offline, as ``HF_HUB_OFFLINE=1`` makes it)."""
    import huggingface_hub.constants

    from baselines.training.hf.tiny import build_tiny_causal_lm

    cache = tmp_path / "hub"
    snapshot = cache / "models--empa-test--tiny" / "snapshots" / "0123abcd"
    model, tokenizer = build_tiny_causal_lm(seed=0)
    model.save_pretrained(snapshot)
    tokenizer.save_pretrained(snapshot)
    refs = cache / "models--empa-test--tiny" / "refs"
    refs.mkdir(parents=True)
    (refs / "main").write_text("0123abcd")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    assert huggingface_hub.constants.HF_HUB_OFFLINE
    argv = ["sft", "--trajectories", str(run_dir), "--model", "empa-test/tiny", *QUICK]
    assert main([*argv, "--output-dir", str(tmp_path / "out")]) == 0
    assert _last_json(capsys)["examples"] == 2
