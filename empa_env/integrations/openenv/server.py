"""Serve EMPA environments over OpenEnv's HTTP/WebSocket protocol, one command:

    python -m empa_env.integrations.openenv.server --env EMPA-Bench-v14 --port 8000
    empa serve --env EMPA-v14 --port 8000 --judger lexicon --max-sessions 16   # the same

Every WebSocket session (one OpenEnv client) plays its own environment; the sessions share one
:class:`~empa_env.context.EnvContext` (roles loaded once, as a benchmark run's episodes do) and
run on the server's event loop through the environment's async ``areset``/``astep``. OpenEnv's
routes (``/ws``, ``/reset``, ``/step``, ``/state``, ``/schema``, ``/metadata``, ``/health``) are
its own: :func:`build_app` is ``openenv.core.env_server.http_server.create_app`` with EMPA's
types.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from typing import Any

from empa_env.errors import USER_ERROR_EXIT, UserError
from empa_env.integrations.conversation import DEFAULT_ENV_ID

#: The environment fields the command line sets (``EnvConfig``'s), with their help.
ENV_OPTIONS: dict[str, str] = {
    "actor": "the Actor backend (offline, llm:MODEL, ...)",
    "director": "the Director backend (offline, llm:MODEL, ...)",
    "judger": "the Judger backend (offline, lexicon, llm:MODEL, ...)",
    "reward": "the per-turn reward (idr, idr_goal, adr, potential, ...)",
    "preset": "the EPM preset (official, paper)",
}


def check_env_id(env_id: str) -> None:
    """Refuse an id that is not a registered EMPA environment (a :class:`UserError`)."""
    import gymnasium

    import empa_env  # noqa: F401  (registers the ids)

    spec = gymnasium.registry.get(env_id)
    if spec is None or spec.entry_point != "empa_env.env:EMPAEnv":
        known = sorted(
            k for k, s in gymnasium.registry.items() if s.entry_point == "empa_env.env:EMPAEnv"
        )
        raise UserError(f"{env_id!r} is not an EMPA environment; known: {', '.join(known)}")


def build_app(env_id: str = DEFAULT_ENV_ID, max_sessions: int = 8, **env_fields: Any) -> Any:
    """The FastAPI application serving ``env_id`` (``env_fields``: ``EnvConfig``'s fields)."""
    from empa_env.config import EnvConfig
    from empa_env.context import EnvContext

    if max_sessions < 1:
        raise UserError(f"--max-sessions must be at least 1, got {max_sessions}")
    check_env_id(env_id)
    try:
        context = EnvContext.build(EnvConfig(**env_fields))
    except UserError:
        raise
    except (TypeError, ValueError, KeyError) as exc:
        raise UserError(f"bad environment option: {exc}") from None

    try:
        from openenv.core.env_server.http_server import create_app
    except ImportError as exc:
        raise UserError(
            f"serving EMPA needs the openenv extra: pip install 'empa-gym[openenv]' ({exc})"
        ) from None

    from empa_env.integrations.openenv.environment import EMPAEnvironment
    from empa_env.integrations.openenv.models import EMPAAction, EMPAObservation, EMPAState

    factory = functools.partial(EMPAEnvironment, env_id, context=context)
    return create_app(
        factory,
        EMPAAction,
        EMPAObservation,
        env_name=env_id,
        max_concurrent_envs=max_sessions,
        state_cls=EMPAState,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", default=DEFAULT_ENV_ID, help="the EMPA environment id")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="the port to listen on")
    parser.add_argument(
        "--max-sessions", type=int, default=8, help="concurrent WebSocket sessions (clients)"
    )
    for name, help_text in ENV_OPTIONS.items():
        parser.add_argument(f"--{name}", default=None, help=help_text)
    parser.add_argument("--max-turns", type=int, default=None, help="the turn limit")
    parser.add_argument(
        "--env-kwargs",
        type=_json_object,
        default={},
        help="more environment fields as a JSON object (EnvConfig's: epm_overrides, ...); "
        "the options above win",
    )


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


def serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted."""
    import uvicorn

    fields = dict(args.env_kwargs)
    fields.update({name: getattr(args, name) for name in ENV_OPTIONS if getattr(args, name)})
    if args.max_turns is not None:
        fields["max_turns"] = args.max_turns
    app = build_app(args.env, args.max_sessions, **fields)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """``empa serve``: the same server as ``python -m empa_env.integrations.openenv.server``."""
    parser = subparsers.add_parser(
        "serve", help="serve EMPA environments to OpenEnv clients (the openenv extra)"
    )
    add_arguments(parser)
    parser.set_defaults(func=serve)


def main(argv: Sequence[str] | None = None) -> int:
    from empa_env.cli import EmpaArgumentParser, error_line

    parser = EmpaArgumentParser(
        prog="python -m empa_env.integrations.openenv.server",
        description="Serve an EMPA environment to OpenEnv clients.",
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return serve(args)
    except UserError as exc:
        print(error_line(exc), file=sys.stderr)
        return USER_ERROR_EXIT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    sys.exit(main())
