"""A real headless Chromium for the report's browser test, driven by its DevTools protocol.

The browser is the system's (Debian's ``chromium`` package, which ``.ci/run`` installs when it is
missing); nothing is downloaded. It is driven over ``--remote-debugging-pipe``: the protocol's
JSON messages, each ended by a NUL byte, go in on the browser's file descriptor 3 and come out on
its descriptor 4, so no WebSocket client (and no extra dependency) is needed.

    with Chromium.start(profile_dir) as browser:
        page = browser.open(Path("report.html"), width=1400, height=900)
        title = page.evaluate("document.title")
        Path("first-screen.png").write_bytes(page.screenshot())
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Where Debian's package puts it; ``EMPA_CHROMIUM`` names another executable.
DEFAULT_EXECUTABLE = "/usr/bin/chromium"
#: Headless, no sandbox (containers run as root), nothing that reaches the network or a GPU, and
#: a fresh profile every time (``--user-data-dir`` is added per start).
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


def _lifted(fd: int) -> int:
    """``fd`` moved to a descriptor numbered 10 or above (the old one closed)."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class BrowserError(RuntimeError):
    """The browser could not be started, answered with an error, or did not answer in time."""


def find_chromium() -> str | None:
    """The Chromium executable to use, or None when there is none."""
    named = os.environ.get("EMPA_CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    if os.access(DEFAULT_EXECUTABLE, os.X_OK):
        return DEFAULT_EXECUTABLE
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class _Pipe:
    """The protocol's two pipes: requests out, answers and events in."""

    to_browser: int
    from_browser: int
    timeout: float
    buffer: bytes = b""
    next_id: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)

    def send(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> Any:
        """Send one command and return its result (events that arrive meanwhile are kept)."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error'].get('message', answer)}")
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)

    def wait_event(self, method: str, session: str = "") -> dict[str, Any]:
        """The first event ``method`` (of ``session``) not yet consumed, waiting for it."""
        while True:
            for i, event in enumerate(self.events):
                if event["method"] == method and event.get("sessionId", "") == session:
                    return self.events.pop(i)
            answer = self._read()
            if "method" in answer:
                self.events.append(answer)

    def _read(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.from_browser], [], [], max(left, 0))
            if not ready:
                raise BrowserError(f"no answer from the browser in {self.timeout:.0f} s")
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise BrowserError("the browser closed its DevTools pipe (it exited)")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)


@dataclass
class Page:
    """One tab: navigate, evaluate JavaScript, take screenshots."""

    pipe: _Pipe
    session: str

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (awaited if it is a promise), as JSON data."""
        result = self.pipe.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            self.session,
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"JavaScript error: {text}")
        return result["result"].get("value")

    def screenshot(self, clip: dict[str, float] | None = None) -> bytes:
        """PNG bytes of the viewport, or of ``clip`` (page coordinates: x, y, width, height)."""
        params: dict[str, Any] = {"format": "png"}
        if clip is not None:
            params["clip"] = {**clip, "scale": 1}
            params["captureBeyondViewport"] = True
        result = self.pipe.send("Page.captureScreenshot", params, self.session)
        return base64.b64decode(result["data"])


@dataclass
class Chromium:
    """A running headless Chromium (see the module docstring)."""

    process: subprocess.Popen[bytes]
    pipe: _Pipe

    @classmethod
    @contextmanager
    def start(cls, profile_dir: Path, *, timeout: float = 60.0) -> Iterator[Chromium]:
        """Start the browser with a fresh profile in ``profile_dir``; stopped on exit."""
        executable = find_chromium()
        if executable is None:
            raise BrowserError("no chromium executable (apt-get install chromium)")
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        # The protocol wants descriptors 3 and 4 exactly: bash moves them there and execs (dash
        # reads one-digit descriptors only). The child's ends are first lifted to 10 or above,
        # so that moving one onto 3 or 4 cannot close the other.
        to_child_r, from_child_w = (_lifted(fd) for fd in (to_child_r, from_child_w))
        script = (
            f'exec "$0" "$@" 3<&{to_child_r} 4>&{from_child_w} {to_child_r}<&- {from_child_w}>&-'
        )
        command = ["/bin/bash", "-c", script, executable, *FLAGS, f"--user-data-dir={profile_dir}"]
        with tempfile.TemporaryFile() as log:  # the browser's own messages, shown if it fails
            process = subprocess.Popen(
                command,
                pass_fds=(to_child_r, from_child_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )
            os.close(to_child_r)
            os.close(from_child_w)
            browser = cls(process, _Pipe(to_child_w, from_child_r, timeout))
            try:
                try:
                    browser.pipe.send("Browser.getVersion")
                except (BrowserError, OSError) as exc:
                    log.seek(0)
                    tail = log.read().decode(errors="replace")[-2000:]
                    raise BrowserError(f"{executable} did not start: {exc}\n{tail}") from None
                yield browser
            finally:
                browser._stop()
                os.close(to_child_w)
                os.close(from_child_r)

    def open(self, html: Path, *, width: int, height: int) -> Page:
        """A new tab of ``width`` x ``height`` CSS pixels with ``html`` loaded (load event seen)."""
        target = self.pipe.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.pipe.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        page = Page(self.pipe, session)
        self.pipe.send("Page.enable", {}, session)
        self.pipe.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        self.pipe.send("Page.navigate", {"url": html.resolve().as_uri()}, session)
        self.pipe.wait_event("Page.loadEventFired", session)
        return page

    def _stop(self) -> None:
        with suppress(BrowserError, OSError):
            self.pipe.send("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()
