"""inspect_ai tasks of empa-gym: ``inspect eval empa_gym/empa30 --model PROVIDER/MODEL``.

inspect_ai names a task ``<top-level package>/<task>`` and finds it through the ``inspect_ai``
entry point of that name, so the tasks live in this small package; the work is in
:mod:`benchmarks.inspect_task`. Task arguments (``-T name=value``): ``actor``, ``director``,
``judger`` (role specs: ``offline``, ``lexicon``, ``llm:MODEL``, ...), ``max_turns``, ``preset``,
``cases`` (comma-separated case ids) and ``llm_options``.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task

from benchmarks.inspect_task import empa_task, task_config

__all__ = ["empa30"]


@task
def empa30(
    actor: str = "offline",
    director: str = "offline",
    judger: str = "offline",
    max_turns: int | None = None,
    preset: str = "official",
    cases: str | None = None,
    llm_options: dict[str, Any] | None = None,
) -> Task:
    """The 30 cases of the empa30 suite, the model under test as the policy."""
    return empa_task(
        task_config("empa30-v1", actor, director, judger, max_turns, preset, cases, llm_options)
    )
