"""``empa cases``: validate, list, show, stats, generate and sample cases.

Registered as the ``cases`` command through the ``empa.commands`` entry-point group. It sits
beside ``empa_env/cases/`` and ``empa_env/llm/``, above both: ``import-official`` completes the
official cases with the LLM rater and completer, and ``llm/`` reads the case format, so the
command living inside ``cases/`` would tie the two folders in a circle.

* ``validate PATH...``  files, directories or suite ids; prints every problem; exit 1 on any.
* ``list [--suite ID | --pool SPEC]``  one line per case.
* ``show ID [--suite ID | --pool SPEC]``  one case as YAML (suites, generated ids, or a file path).
* ``stats [--suite ID | --pool SPEC]``  distributions by axis, domain, difficulty, threshold and
  ``||P_0||`` mean / sd, so anyone can see whether a set is stratified.
* ``generate --seed N --count N --out DIR``  write generated cases as YAML files.
* ``sample --pool SPEC --n N --seed N [--out DIR]``  a stratified, benchmark-shaped sample;
  exit 1 when a stratum cannot be filled (the report says which).

A pool SPEC is ``generated``, ``generated:SEED``, ``generated:SEED:SIZE``, a suite id or a
directory of case files (see :func:`empa_env.cases.suites.resolve_pool`).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from empa_env.cases.suites import SuiteError, available_suites
from empa_env.errors import UserError
from empa_env.safe_text import echo

if TYPE_CHECKING:
    import pandas as pd

    from empa_env.cases.schema import Case

_GEN_ID = re.compile(r"^gen-s(\d+)-(\d+)$")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``cases`` and its sub-commands to the ``empa`` parser."""
    parser = subparsers.add_parser(
        "cases", help="validate, list, show, summarise, generate and sample cases"
    )
    sub = parser.add_subparsers(dest="cases_command", metavar="ACTION")
    parser.set_defaults(func=lambda args: _usage(parser))

    p = sub.add_parser(
        "validate", help="validate case files, directories or suites; print every problem"
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="case file, directory of cases, or suite id"
    )
    p.set_defaults(func=_guard(_validate))

    p = sub.add_parser("list", help="one line per case")
    _add_source(p)
    p.set_defaults(func=_guard(_list))

    p = sub.add_parser("show", help="print one case as YAML")
    p.add_argument(
        "case_id", metavar="ID", help="a case id (suite or gen-sSEED-INDEX) or a case file"
    )
    _add_source(p)
    p.set_defaults(func=_guard(_show))

    p = sub.add_parser("stats", help="distributions: axis, domain, difficulty, threshold, ||P_0||")
    _add_source(p)
    p.set_defaults(func=_guard(_stats))

    p = sub.add_parser("generate", help="write generated cases as YAML files")
    p.add_argument("--seed", type=int, default=0, help="generator seed (default: %(default)s)")
    p.add_argument("--count", type=int, required=True, help="how many cases to write")
    p.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="folder for the YAML files"
    )
    p.add_argument("--force", action="store_true", help="overwrite existing files")
    p.set_defaults(func=_guard(_generate))

    p = sub.add_parser("sample", help="draw a stratified, benchmark-shaped sample from a pool")
    p.add_argument(
        "--pool",
        default="generated",
        metavar="SPEC",
        help="generated[:SEED[:SIZE]], a suite id or a directory (default: %(default)s)",
    )
    p.add_argument("--n", type=int, default=30, help="sample size (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default: %(default)s)")
    p.add_argument("--out", type=Path, metavar="DIR", help="also write the sampled cases here")
    for flag, stratum in (("--axis", "dominant_axis"), ("--domain", "domain"),
                          ("--difficulty", "difficulty"), ("--threshold", "empathy_threshold")):  # fmt: skip
        p.add_argument(flag, dest=f"{stratum}_quota", type=_quota_arg(stratum), metavar="V=K,...",
                       help=f"quota per {stratum} value (default: the paper's, scaled to --n)")  # fmt: skip
    p.set_defaults(func=_guard(_sample))

    p = sub.add_parser(
        "import-official",
        help="convert the official EMPA case cards and plots into case files (language: zh)",
        description="Convert official EMPA cases (empa/data/cases/script_NNN.md and "
        "empa/data/scenarios/character_stories.json of a checkout of "
        "KAYA-HAI/EMPA-Benchmark-EPMSandbox, CC BY-NC 4.0) into case files. IEDR levels come "
        "from the published results where present, else from --iedr. Without --writer the "
        "offline material (voice lines, judge cues, stage narration/emotions/focus) is missing "
        "and the cases are marked llm_roles_only. Every card converts or gets a reason.",
    )
    p.add_argument("path", type=Path, metavar="PATH", help="checkout of the official repository")
    p.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="folder for the case files"
    )
    p.add_argument("--iedr", metavar="llm:MODEL", help="rate cases without published IEDR levels")
    p.add_argument("--writer", metavar="llm:MODEL", help="write the offline material with an LLM")
    p.add_argument("--api-base", default=None, help="OpenAI-compatible base URL for the LLMs")
    p.add_argument("--id", action="append", dest="ids", metavar="SCRIPT_ID", help="only these")
    p.add_argument("--force", action="store_true", help="overwrite existing files")
    p.set_defaults(func=_guard(_import_official))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _add_source(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "--suite", metavar="ID", help=f"a registered suite ({', '.join(available_suites())})"
    )
    group.add_argument(
        "--pool", metavar="SPEC", help="generated[:SEED[:SIZE]], a suite id or a directory"
    )


def _guard(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Report expected errors (bad cases, unknown suites or pools) as messages, not tracebacks."""

    def run(args: argparse.Namespace) -> int:
        from empa_env.cases.loader import CaseError

        try:
            return command(args)
        except (CaseError, SuiteError, ValueError, KeyError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) else str(exc)
            raise UserError(message) from None

    return run


def _quota_arg(stratum: str) -> Callable[[str], dict[str, int]]:
    def parse(text: str) -> dict[str, int]:
        from empa_env.cases.sampler import STRATA

        out: dict[str, int] = {}
        for part in filter(None, (s.strip() for s in text.split(","))):
            key, sep, value = part.partition("=")
            if not sep or not value.strip().isdigit():
                raise argparse.ArgumentTypeError(f"expected VALUE=COUNT pairs, got {part!r}")
            out[key.strip()] = int(value)
        unknown = sorted(set(out) - set(STRATA[stratum]))
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown {stratum} values {unknown}; use {list(STRATA[stratum])}"
            )
        return out

    return parse


def _source(args: argparse.Namespace) -> tuple[str, tuple[Case, ...]]:
    from empa_env.cases.suites import load_suite, resolve_pool

    if args.suite:
        return args.suite, load_suite(args.suite).cases
    spec = args.pool or "generated"
    return spec, resolve_pool(spec)


# ------------------------------------------------------------------------------------ commands


def _validate(args: argparse.Namespace) -> int:
    from empa_env.cases.consistency import contradictions
    from empa_env.cases.facts import fact_issues
    from empa_env.cases.loader import CaseError, CaseIssue, case_files, load_case
    from empa_env.cases.suites import load_suite

    issues: list[CaseIssue] = []
    seen: dict[str, str] = {}
    n_cases = 0
    suites = set(available_suites())

    def add(case: Case, where: str) -> None:
        nonlocal n_cases
        facts = fact_issues(case) + contradictions(case)
        issues.extend(CaseIssue(where, field, problem) for field, problem in facts)
        if facts:
            return
        if case.id in seen:
            issues.append(
                CaseIssue(where, "id", f"duplicate id {case.id!r} (also in {seen[case.id]})")
            )
        else:
            seen[case.id] = where
            n_cases += 1

    for raw in args.paths:
        path = Path(raw)
        if path.is_dir():
            for file in case_files(path):
                try:
                    add(load_case(file), str(file))
                except CaseError as exc:
                    issues.extend(exc.issues)
        elif path.is_file():
            try:
                add(load_case(path), str(path))
            except CaseError as exc:
                issues.extend(exc.issues)
        elif raw in suites:
            try:
                for case in load_suite(raw).cases:
                    add(case, f"{raw}:{case.id}")
            except CaseError as exc:
                issues.extend(exc.issues)
            except SuiteError as exc:
                issues.extend(CaseIssue(raw, "manifest", p) for p in exc.problems)
        else:
            issues.append(CaseIssue(raw, "", "no such file, directory or suite id"))
    if issues:
        for issue in issues:
            echo(issue)
        echo(
            f"{len(issues)} problem(s) in {len({i.path for i in issues})} place(s); {n_cases} valid case(s)"
        )
        return 1
    echo(f"ok: {n_cases} valid case(s)")
    return 0


def _frame(cases: Sequence[Case]) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for c in cases:
        meta = c.metadata()
        rows.append({
            "id": c.id, "domain": c.domain, "axis": c.dominant_axis, "norm_p0": meta["norm_p0"],
            "difficulty": c.difficulty, "threshold": c.empathy_threshold,
            "name": c.persona.name, "age": c.persona.age, "source": c.source,
        })  # fmt: skip
    return pd.DataFrame(rows, columns=["id", "domain", "axis", "norm_p0", "difficulty", "threshold",
                                       "name", "age", "source"])  # fmt: skip


def _list(args: argparse.Namespace) -> int:
    import pandas as pd

    label, cases = _source(args)
    frame = _frame(cases)
    with pd.option_context("display.max_rows", None, "display.width", 200):
        echo(frame.to_string(index=False, float_format=lambda x: f"{x:.2f}"))
    echo(f"{len(frame)} case(s) in {label}")
    return 0


def _find(case_id: str, args: argparse.Namespace) -> Case:
    from empa_env.cases.generator import ProceduralGenerator
    from empa_env.cases.loader import load_case
    from empa_env.cases.suites import DEFAULT_POOL_SIZE, load_suite, training_pool

    if args.suite or args.pool:
        _, cases = _source(args)
        for c in cases:
            if c.id == case_id:
                return c
        raise KeyError(f"no case {case_id!r} in {args.suite or args.pool}")
    if Path(case_id).is_file():
        return load_case(case_id)
    for suite in available_suites():
        for c in load_suite(suite).cases:
            if c.id == case_id:
                return c
    m = _GEN_ID.match(case_id)
    if m:
        seed, index = int(m.group(1)), int(m.group(2))
        if index < DEFAULT_POOL_SIZE:
            return training_pool(seed)[index]
        return ProceduralGenerator().generate(index + 1, seed)[index]
    raise KeyError(f"no case {case_id!r} in the suites ({', '.join(available_suites())}); "
                   "generated ids look like gen-s0-0042")  # fmt: skip


def _show(args: argparse.Namespace) -> int:
    from empa_env.cases.loader import dump_case

    case = _find(args.case_id, args)
    p0 = ", ".join(f"{x:g}" for x in case.p0)
    echo(f"# dominant axis {case.dominant_axis}, P_0 = ({p0}), ||P_0|| = {case.norm_p0:.2f} "
          f"({case.difficulty}), threshold {case.empathy_threshold}")  # fmt: skip
    echo(dump_case(case), end="")
    return 0


def _counts(series: pd.Series, values: Sequence[str]) -> pd.DataFrame:
    import pandas as pd

    counts = series.value_counts().reindex(list(values), fill_value=0)
    total = max(int(counts.sum()), 1)
    return pd.DataFrame({"count": counts, "share": (counts / total).round(3)})


def _stats(args: argparse.Namespace) -> int:
    import pandas as pd

    from empa_env.cases.sampler import STRATA

    label, cases = _source(args)
    frame = _frame(cases)
    echo(f"{label}: {len(frame)} case(s)")
    if frame.empty:
        return 0
    for title, column, values in (
        ("dominant axis", "axis", STRATA["dominant_axis"]),
        ("life domain", "domain", STRATA["domain"]),
        ("difficulty (||P_0|| vs mu = 32.32, sd = 4.52)", "difficulty", STRATA["difficulty"]),
        ("empathy threshold", "threshold", STRATA["empathy_threshold"]),
    ):
        echo(f"\n{title}:")
        echo(_counts(frame[column], values).to_string())
    echo("\ndomain x dominant axis:")
    table = pd.crosstab(frame["domain"], frame["axis"]).reindex(
        index=list(STRATA["domain"]), columns=list(STRATA["dominant_axis"]), fill_value=0
    )
    echo(table.to_string())
    norms = frame["norm_p0"].astype(float)
    sd = norms.std(ddof=1) if len(norms) > 1 else 0.0
    echo(
        f"\n||P_0||: mean {norms.mean():.2f}, sd {sd:.2f}, min {norms.min():.2f}, max {norms.max():.2f}"
    )
    sources = Counter(frame["source"])
    echo("source: " + ", ".join(f"{k} {v}" for k, v in sorted(sources.items())))
    return 0


def _write(cases: Sequence[Case], out: Path, force: bool) -> None:
    from empa_env.cases.loader import dump_case

    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # not a folder, no permission, read-only file system, ...
        raise ValueError(f"--out {out}: cannot create the folder ({exc.strerror or exc})") from None
    targets = [out / f"{c.id}.yaml" for c in cases]
    existing = [str(t) for t in targets if t.exists()]
    if existing and not force:
        raise ValueError(
            f"{len(existing)} file(s) already exist (e.g. {existing[0]}); use --force to overwrite"
        )
    from empa_env.atomic import atomic_write

    for case, target in zip(cases, targets, strict=True):
        try:
            atomic_write(target, dump_case(case))  # never a half-written case file
        except OSError as exc:
            raise ValueError(
                f"--out {out}: cannot write {target.name} ({exc.strerror or exc})"
            ) from None


def _generate(args: argparse.Namespace) -> int:
    from empa_env.cases.generator import ProceduralGenerator

    if args.count < 0:
        raise ValueError(f"--count must be >= 0, got {args.count}")
    cases = ProceduralGenerator().generate(args.count, args.seed)
    _write(cases, args.out, args.force)
    echo(f"wrote {len(cases)} case(s) to {args.out}")
    return 0


def _sample(args: argparse.Namespace) -> int:
    from empa_env.cases.sampler import stratified_sample
    from empa_env.cases.suites import resolve_pool

    pool = resolve_pool(args.pool)
    sample = stratified_sample(
        pool, n=args.n, seed=args.seed,
        axis_quota=args.dominant_axis_quota, domain_quota=args.domain_quota,
        difficulty_quota=args.difficulty_quota, threshold_quota=args.empathy_threshold_quota,
    )  # fmt: skip
    echo(f"pool {args.pool}: {len(pool)} case(s)")
    echo(sample.report())
    for case in sample.cases:
        echo(
            f"  {case.id}  {case.domain:<16} {case.dominant_axis}  {case.norm_p0:6.2f}  {case.difficulty}"
        )
    if args.out:
        _write(sample.cases, args.out, force=False)
        echo(f"wrote {len(sample.cases)} case(s) to {args.out}")
    return 0 if sample.complete else 1


def _llm_model(spec: str | None, flag: str) -> str | None:
    if spec is None:
        return None
    kind, sep, model = spec.partition(":")
    if kind != "llm" or not sep or not model:
        raise ValueError(f"{flag} must be llm:MODEL, got {spec!r}")
    return model


def _import_official(args: argparse.Namespace) -> int:
    import asyncio

    from empa_env.cases.official import aconvert_official_cases

    options = {"api_base": args.api_base} if args.api_base else {}
    iedr_model = _llm_model(args.iedr, "--iedr")
    writer_model = _llm_model(args.writer, "--writer")
    iedr = writer = None
    if iedr_model:
        from empa_env.llm.iedr import LLMIEDRRater

        iedr = LLMIEDRRater(iedr_model, **options)
    if writer_model:
        from empa_env.llm.generator import LLMCaseCompleter

        writer = LLMCaseCompleter(writer_model, **options)
    try:
        report = asyncio.run(
            aconvert_official_cases(args.path, iedr=iedr, writer=writer, ids=args.ids)
        )
    except FileNotFoundError as exc:
        raise ValueError(str(exc)) from None
    if report.cases:
        _write(report.cases, args.out, args.force)
    echo(report)
    only = sum(1 for c in report.cases if c.llm_roles_only)
    echo(f"wrote {len(report.cases)} case(s) to {args.out}"
          + (f" ({only} for LLM roles only: no --writer)" if only else ""))  # fmt: skip
    return 1 if report.failures else 0
