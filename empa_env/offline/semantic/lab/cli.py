"""``empa judge``: build the corpus, train heads, validate on EPITOME, rate one reply.

Registered as the ``judge`` command through the ``empa.commands`` entry-point group.

* ``corpus [--seed N] [--out PATH]``  regenerate the labelled corpus (deterministic by seed).
* ``train --data FILE [--out PATH] [--tier static|minilm] [--l2 X] [--parts] [--subsample K]``
  train the six heads on a JSONL file in the documented format; the shipped corpus and defaults
  reproduce the shipped heads.
* ``eval --epitome CSV [--json] [--judger SPEC] [--posts N]``  the levels the environment uses
  against EPITOME's human levels (AUROC of "people credit it", Spearman, credited share beside
  people's) and the contrastive check (:mod:`empa_env.offline.semantic.lab.human_check`); ``--bare`` /
  ``--heads PATH``: the semantic heads alone (accuracy, macro-F1, AUROC, Spearman).
* ``rate --user TEXT --reply TEXT [--judger SPEC]``  one judgement as JSON.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from dataclasses import asdict
from pathlib import Path


def _tiers() -> list[str]:
    """The encoder tiers the CLI offers: the built-ins and those installed by entry point."""
    from empa_env.offline.semantic.encoder import encoder_tiers

    return encoder_tiers.names()


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``judge`` and its sub-commands to the ``empa`` parser."""
    parser = subparsers.add_parser("judge", help="the offline judges: check against people, "
                                   "rate a reply, build the semantic judge's assets")  # fmt: skip
    sub = parser.add_subparsers(dest="judge_command", metavar="ACTION")
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])

    p = sub.add_parser("corpus", help="regenerate the labelled reply corpus")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--out", type=Path, default=None, help="default: the shipped replies.jsonl")
    p.add_argument(
        "--forum-posts",
        type=int,
        default=None,
        help="posts of the forum component (default: the shipped corpus's, 3000)",
    )
    p.set_defaults(func=_corpus)

    p = sub.add_parser("train", help="train the heads on a JSONL corpus")
    p.add_argument("--data", type=Path, required=True, metavar="FILE")
    p.add_argument("--out", type=Path, default=None, help="default: the shipped heads of --tier")
    p.add_argument("--tier", default="static", choices=_tiers(),
                   help="encoder tier (default: static, the default judge's)")  # fmt: skip
    p.add_argument("--l2", type=float, default=None)
    p.add_argument(
        "--features",
        default=None,
        choices=("addressed", "surface", "pair", "pooled"),
        help="default: the tier's shipped feature set (static: addressed, minilm: surface). "
        "addressed: pair + surface features + sentences addressed to the user and the writer's "
        "own pooled apart, scored with the strongest sentence; surface: pair + surface "
        "features; pair: embeddings only; pooled: + sentence pools and relevance gate",
    )
    p.add_argument(
        "--parts",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also train on each reply's labelled parts (default: the tier's shipped choice, "
        "static yes, minilm no)",
    )
    p.add_argument(
        "--subsample",
        type=int,
        default=1,
        metavar="K",
        help="train on about one reply in K (those whose text hashes to 0 mod K; the same for any "
        "file order): a quick check of a setup (default: 1, every reply)",
    )
    p.set_defaults(func=_train)

    p = sub.add_parser(
        "eval",
        help="validate against EPITOME human labels: the levels the environment uses (the "
        "default judge, or --judger), and the contrastive check; --bare for the semantic heads",
    )
    p.add_argument("--epitome", type=Path, required=True, metavar="CSV")
    p.add_argument("--json", action="store_true")
    p.add_argument("--judger", default="offline",
                   help="the judge to check, any role spec (default: offline)")  # fmt: skip
    p.add_argument("--posts", type=int, default=200,
                   help="posts of the contrastive check (default: 200)")  # fmt: skip
    p.add_argument("--tier", default="static", choices=_tiers(),
                   help="encoder tier of --bare/--heads (default: static)")  # fmt: skip
    p.add_argument("--heads", type=Path, default=None,
                   help="evaluate these heads alone (bare heads only, no guards)")  # fmt: skip
    p.add_argument("--bare", action="store_true",
                   help="the bare semantic heads only (no guards, no grounding)")  # fmt: skip
    p.set_defaults(func=_eval)

    p = sub.add_parser(
        "rate",
        help="rate one reply to one user message as the environment does (the default judge, "
        "or --judger)",
    )
    p.add_argument("--user", required=True)
    p.add_argument("--reply", required=True)
    p.add_argument("--judger", default="offline", help="any role spec (default: offline)")
    p.add_argument("--tier", default="static", choices=_tiers(),
                   help="encoder tier (default: static, the default judge's)")  # fmt: skip
    p.add_argument("--bare", action="store_true",
                   help="the bare semantic heads only (no guards, no grounding)")  # fmt: skip
    p.set_defaults(func=_rate)

    p = sub.add_parser(
        "train-grounding",
        help="build the grounding model (is a reply about this person?) from the corpus",
    )
    p.add_argument("--data", type=Path, default=None, metavar="FILE",
                   help="the labelled corpus (default: the shipped replies.jsonl)")  # fmt: skip
    p.add_argument("--out", type=Path, default=None,
                   help="default: the shipped grounding.npz")  # fmt: skip
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_train_grounding)

    p = sub.add_parser(
        "train-fluency",
        help="build the guards' fluency model from the case library and the shipped suite",
    )
    p.add_argument("--out", type=Path, default=None,
                   help="default: the shipped fluency.json")  # fmt: skip
    p.set_defaults(func=_train_fluency)


def _corpus(args: argparse.Namespace) -> int:
    from empa_env.offline.semantic.lab.corpus.generator import (
        CorpusConfig,
        corpus_path,
        generate,
        write_jsonl,
    )

    config = CorpusConfig() if args.seed is None else CorpusConfig(seed=args.seed)
    if args.forum_posts is not None:
        config = dataclasses.replace(config, forum_posts=args.forum_posts)
    out = args.out or corpus_path()
    n = write_jsonl(generate(config), out)
    print(f"wrote {n} labelled replies to {out}")
    return 0


def _train(args: argparse.Namespace) -> int:
    from empa_env.errors import UserError
    from empa_env.offline.semantic.encoder import load_encoder
    from empa_env.offline.semantic.judger import HEADS_FILES
    from empa_env.offline.semantic.lab.train import (
        DEFAULT_L2,
        TIER_FEATURES,
        TIER_PARTS,
        CorpusFormatError,
        load_records,
        subsample,
        train_heads,
    )

    if args.subsample < 1:
        raise UserError(f"--subsample must be at least 1, got {args.subsample}")
    try:
        records = subsample(load_records(args.data), args.subsample)
    except (OSError, CorpusFormatError) as exc:
        raise UserError(str(exc)) from None
    if not records:
        raise UserError(f"{args.data}: no reply is left with --subsample {args.subsample}")
    encoder = load_encoder(args.tier)
    heads = train_heads(records, encoder, l2=args.l2 or DEFAULT_L2, tier=args.tier,
                        features=args.features or TIER_FEATURES[args.tier],
                        parts=TIER_PARTS[args.tier] if args.parts is None else args.parts)  # fmt: skip
    out = args.out or HEADS_FILES.get(args.tier) or Path(f"heads-{args.tier}.npz")
    heads.save(out)
    print(json.dumps({"out": str(out), **heads.meta}, indent=2))
    return 0


def _eval(args: argparse.Namespace) -> int:
    from empa_env.backends import judgers
    from empa_env.errors import UserError
    from empa_env.offline.semantic.judger import SemanticJudger
    from empa_env.offline.semantic.lab.evaluate import evaluate_epitome, format_report
    from empa_env.offline.semantic.lab.human_check import (
        contrast_check,
        evaluate_as_used,
        format_as_used,
    )

    if not args.epitome.is_file():
        raise UserError(f"{args.epitome} not found (EPITOME is not shipped: give its CSV's path)")
    try:
        if args.bare or args.heads is not None:
            bare = SemanticJudger(tier=args.tier, heads_path=args.heads)
            report = evaluate_epitome(bare, args.epitome)
            print(json.dumps(report.as_dict()) if args.json else format_report(report))
            return 0
        judger = judgers.create(args.judger)
        as_used = evaluate_as_used(judger, args.epitome)
        contrast = contrast_check(judger, args.epitome, posts=args.posts)
    except (ValueError, KeyError, UnicodeDecodeError) as exc:
        raise UserError(f"{args.epitome}: not an EPITOME CSV ({exc})") from None
    if args.json:
        print(json.dumps({"judger": args.judger, "as_used": as_used.as_dict(),
                          "contrast": {"posts": contrast.posts, "wins": contrast.wins}}))  # fmt: skip
    else:
        print(f"judger={args.judger}\n{format_as_used(as_used)}\n{contrast.line()}")
    return 0


def _rate(args: argparse.Namespace) -> int:
    from empa_env.backends import judgers
    from empa_env.offline.semantic.judger import SemanticJudger
    from empa_env.roles.views import JudgeView, Message

    if args.bare:
        j = SemanticJudger(tier=args.tier).rate(args.user, args.reply)
    else:
        view = JudgeView(None, (Message("user", args.user),), args.reply, 1)  # type: ignore[arg-type]
        j = judgers.create(args.judger).judge(view)
    print(json.dumps(asdict(j), ensure_ascii=False, indent=2))
    return 0


def _train_grounding(args: argparse.Namespace) -> int:
    from empa_env.offline.semantic.grounding import GROUNDING_FILE
    from empa_env.offline.semantic.lab.corpus.generator import corpus_path
    from empa_env.offline.semantic.lab.grounding_train import train_grounding

    data = args.data or corpus_path()
    if not Path(data).is_file():
        from empa_env.errors import UserError

        raise UserError(f"{data} not found")
    report = train_grounding(Path(data), args.out or GROUNDING_FILE, seed=args.seed)
    print(json.dumps({"out": str(args.out or GROUNDING_FILE), **report}, indent=2))
    return 0


def _train_fluency(args: argparse.Namespace) -> int:
    from empa_env.offline.guards import FLUENCY_FILE, write_fluency_model

    out = args.out or FLUENCY_FILE
    n = write_fluency_model(out)
    print(json.dumps({"out": str(out), "sentences": n}))
    return 0
