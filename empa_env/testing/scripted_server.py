"""A small OpenAI-compatible chat server of our own, for tests and benchmarks on localhost.

It plays the project's LLM roles deterministically from the request content (it recognises the
role from the first line of our system prompts, ``You are the EMPA <Role>``) and injects faults
on demand, so the client layer can be tested against a real HTTP server:

* ``http_500``, ``http_503``, ``http_429`` (retryable; with a ``Retry-After`` header when
  :attr:`ScriptedLLMServer.retry_after` is set), ``http_400``, ``http_401``, ``http_403``,
  ``http_404`` (fatal: a bad request, a refused key, an unknown model),
* ``timeout`` (the reply never comes within the client's timeout), ``slow`` (comes late but in
  time), ``drop`` (the connection is closed without a reply), ``garbage`` (a non-JSON HTTP body),
* ``malformed`` (well-formed HTTP, broken JSON *content*), ``refusal`` (the model declines).

Faults are scheduled in two ways, both deterministic under concurrency:

* :meth:`ScriptedLLMServer.inject` queues a fault for the next ``times`` matching requests;
* a marker in any message, ``[[fault:KIND@ROLE*N#TAG]]`` (``@ROLE``, ``*N`` and ``#TAG``
  optional), applies the fault to the first ``N`` requests of that role that contain the exact
  marker. A policy can thus put a fault into one particular turn of one particular episode.

A fixed ``latency`` (seconds per request) makes the benchmark's critical path exact. Run it by
hand with ``python -m empa_env.testing.scripted_server --port 8011 --latency 0.05`` (``--port 0``:
any free port, printed); such a server in another process shows its request log at ``GET /_log``
(``DELETE /_log`` clears it). The file needs nothing but the standard library.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULT_KINDS: tuple[str, ...] = (
    "http_500", "http_503", "http_429", "http_400", "http_401", "http_403", "http_404",
    "timeout", "slow", "drop", "garbage", "malformed", "refusal",
    "trickle", "echo_key", "echo_key_error",
)  # fmt: skip
ROLES: tuple[str, ...] = ("judger", "actor", "director", "iedr", "nee", "case-writer")
REFUSAL_TEXT = "I'm sorry, but I can't help with that request."
#: ``GET`` the request log (every :class:`RequestRecord` but its body), ``DELETE`` to clear it:
#: what a test or benchmark reads of a server started in another process (``main``).
LOG_PATH = "/_log"

_ROLE_RE = re.compile(r"You are (?:the |an? )?EMPA ([A-Za-z-]+)")
_MARKER_RE = re.compile(r"\[\[fault:([a-z0-9_]+)(?:@([a-z-]+))?(?:\*(\d+))?(?:#([\w.-]+))?\]\]")


@dataclass
class RequestRecord:
    """One request as the server saw it (for tests: nothing lost, nothing extra)."""

    role: str
    fault: str | None
    status: int
    model: str
    tools: bool
    json_mode: bool
    started: float
    finished: float = 0.0
    #: The request's JSON body as sent (messages and parameters), to compare clients.
    body: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Planned:
    kind: str
    remaining: int
    role: str | None = None


@dataclass
class _State:
    latency: float = 0.0
    reject_tools: bool = False
    hang_seconds: float = 30.0
    slow_seconds: float = 0.3
    retry_after: float | None = None
    planned: list[_Planned] = field(default_factory=list)
    marker_uses: Counter = field(default_factory=Counter)
    log: list[RequestRecord] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)


def _stable(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:12], 16)


def _role_of(messages: list[dict[str, Any]]) -> str:
    for message in messages:
        if message.get("role") == "system":
            found = _ROLE_RE.search(str(message.get("content") or ""))
            if found:
                name = found.group(1).lower()
                return name if name in ROLES else "unknown"
    return "unknown"


def _all_text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages)


def _last_user(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def _first_user(messages: list[dict[str, Any]]) -> str:
    for message in messages:
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


# --------------------------------------------------------------------------------------------
# deterministic role play
# --------------------------------------------------------------------------------------------
_JUDGE_RULES: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("A_Prog", 2, ("underneath", "deeper", "beneath", "really about")),
    ("A_Prog", 1, ("feel", "sounds", "hurt", "painful", "angry", "sad", "must be", "makes sense")),
    ("C_Prog", 2, ("another way to see", "what if", "reframe", "looked at differently")),
    ("C_Prog", 1, ("so you", "it sounds like you", "if i understand", "you mean", "?")),
    ("P_Prog", 2, ("your choice", "you get to decide", "you have the power", "it's yours")),
    ("P_Prog", 1, ("you did", "you've", "you have been", "you kept", "you can")),
    ("C_Neg", -2, ("not a real problem", "that's not what happened")),
    ("C_Neg", -1, ("everything happens for a reason", "i understand completely")),
    ("A_Neg", -2, ("calm down", "overreacting", "your fault")),
    ("A_Neg", -1, ("i hear you and i validate", "as an ai", "i'm sorry you feel")),
    ("P_Neg", -2, ("give up", "pointless", "no point")),
    ("P_Neg", -1, ("you should", "you need to", "just stay positive", "follow your dreams")),
)


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+", text.strip())
    return [p for p in parts if p]


def play_judger(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Levels from simple cues in the reply; the evidence is the sentence that triggered each."""
    user = _first_user(messages)
    token = re.search(r"The fence token of this message is (\S+?)\.", user)
    if token:  # the fenced protocol: only the text inside the real reply fence is the reply
        t = re.escape(token.group(1))
        match = re.search(rf"<<<{t} reply>>>\n(.*)\n<<<end {t} reply>>>", user, re.S)
    else:
        match = re.search(r"# The assistant's reply to rate[^\n]*\n(.*?)\n\s*Rate only", user, re.S)
    reply = (match.group(1) if match else user).strip()
    levels = {f"{a}_{k}": 0 for a in "CAP" for k in ("Prog", "Neg")}
    evidence: dict[str, str] = {}
    reasoning: dict[str, str] = {}
    for sentence in _sentences(reply):
        low = sentence.lower()
        for key, level, cues in _JUDGE_RULES:
            if levels[key] == 0 and any(c in low for c in cues):
                levels[key] = level
                evidence[key] = sentence
                reasoning[key] = f"scripted rule: matched a {key} cue"
    out: dict[str, Any] = {"evidence": evidence, "reasoning": reasoning}
    out.update({f"{k}_level": v for k, v in levels.items()})
    return out


def _parse_int_list(text: str, label: str) -> list[int]:
    found = re.search(rf"{label}:\s*([^\n]*)", text)
    return [int(x) for x in re.findall(r"\d+", found.group(1))] if found else []


def play_director(messages: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """A fixed pacing: end when allowed, a stage every third turn, a memory every fifth."""
    text = _last_user(messages) if "could not be used" not in _last_user(messages) else ""
    text = text or _first_user(messages)
    turn_match = re.search(r"# EPM state \(turn (\d+)\)", text)
    turn = int(turn_match.group(1)) if turn_match else 0
    if re.search(r"can_end:\s*true", text):
        return "end_conversation", {"reason": "the success condition holds"}
    released = set(_parse_int_list(text, "released stages"))
    pending = [i for i in range(4) if i not in released]
    if turn % 3 == 2 and pending:
        return "select_and_reveal_fragment", {
            "stage_index": pending[0],
            "reason": "scripted pacing",
            "actor_guidance": "Tell this part of your story now, briefly.",
        }
    revealed = re.search(r"revealed memories:\s*([^\n]*)", text)
    shown = set(re.findall(r"[a-z_]+", revealed.group(1))) if revealed else set()
    periods = [
        p for p in ("current", "childhood", "adolescence", "young_adulthood") if p not in shown
    ]
    if turn % 5 == 4 and periods:
        return "reveal_memory", {"memory_period": periods[0], "reason": "scripted pacing"}
    return "observe_and_wait", {"observation": f"turn {turn}", "wait_reason": "scripted pacing"}


_ACTOR_LINES: tuple[str, ...] = (
    "Yeah. That's part of it, I guess.",
    "I don't know. It's been a long week.",
    "Maybe. I keep going back and forth on it.",
    "Honestly? That's the bit that keeps me up.",
    "Hm. I hadn't thought of it like that.",
    "It's hard to explain, but yes.",
)


def play_actor(messages: list[dict[str, Any]]) -> str:
    """Follows the prompt's listening rules in the simplest way: leaves when told to, takes a
    goodbye, notices an empty message, answers a question from the facts it was given."""
    last = _last_user(messages)
    system = str(messages[0].get("content") or "") if messages else ""
    if "you leave now" in system:
        return "I'm done here. Goodbye. [LEAVE]"
    if re.search(r"\b(good ?bye|bye|i have to go|i need to go)\b", last, re.I):
        return "Okay. Goodbye then. [END]"
    if len(messages) > 2 and not last.strip():
        return "Hello? Are you still there?"
    told = re.search(r"Say it in your own words: (.+)", system)
    if told:
        return f"There's something else. {told.group(1).strip()[:90]}"
    if "?" in last:
        asked = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", last)}
        facts = re.findall(r"^- (.+)$", system.split("# What you can tell when asked")[-1], re.M)
        for fact in facts if "# What you can tell when asked" in system else []:
            if asked & {w.lower() for w in re.findall(r"[A-Za-z]{4,}", fact)}:
                return fact
    return _ACTOR_LINES[_stable(last) % len(_ACTOR_LINES)]


def play_iedr(messages: list[dict[str, Any]]) -> dict[str, Any]:
    h = _stable(_first_user(messages))
    indicators = ("C.1", "C.2", "C.3", "A.1", "A.2", "A.3", "P.1", "P.2", "P.3")
    levels = {ind: 1 + (h >> (2 * i)) % 3 for i, ind in enumerate(indicators)}
    return {"reasoning": {ind: "scripted" for ind in indicators}, "levels": levels}


def play_nee(messages: list[dict[str, Any]], json_mode: bool) -> Any:
    h = _stable(_first_user(messages))
    if not json_mode:
        return "Diagnosis: the person starts guarded and tired; the assistant listens and the mood eases."
    return {
        "reasoning": "scripted",
        "naturalness": 15 + h % 15,
        "pacing": 20 + (h >> 4) % 20,
        "narrative_arc": 10 + (h >> 8) % 20,
    }


def play_case_writer(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A complete, valid case body (everything but id, domain and IEDR levels)."""
    prompt = _first_user(messages)
    h = _stable(prompt)
    names = ("Mara Okafor", "Jonas Weber", "Lin Zhao", "Priya Nair", "Sam Ortiz", "Aino Virtanen")
    name = names[h % len(names)]
    first = name.split()[0]
    lines = [f"{first} line {i}" for i in range(4)]
    stage = {
        "summary": f"{first} remembers a moment that still stings.",
        "narration": [f"{first}: it started long ago.", f"{first}: I never told anyone."],
        "emotions": ["grief", "shame"],
    }
    return {
        "empathy_threshold": ("high", "medium", "low")[h % 3],
        "persona": {
            "name": name,
            "gender": ("female", "male", "non-binary")[h % 3],
            "age": 25 + h % 40,
            "social_persona": "Dependable colleague who keeps things running.",
            "inner_core": "Afraid that needing help means being a burden.",
            "speaking_style": "Short sentences, dry humour, avoids big words.",
            "chat_principles": ["Shuts down when lectured.", "Tests whether you listened."],
        },
        "profile": {
            "opening_topic": "A plan fell through this week.",
            "vent": "Everyone expected them to fix it and nobody asked how they were.",
            "hoped_empathy": "To be seen as a person, not a function.",
            "priorities": {"affective": "high", "motivational": "medium", "cognitive": "low"},
        },
        "experience": {
            "childhood": "Eldest child, looked after siblings.",
            "adolescence": "Worked weekends to help at home.",
            "young_adulthood": "Moved city for a job and built a quiet life.",
            "growth_arc": "Learns that asking for help is not weakness.",
            "current_situation": "Overloaded at work and at home.",
            "goals": "Decide what to let go of.",
        },
        "scenario_trigger": "Late at night after another long day.",
        "plot": {
            "stages": [
                {**stage, "kind": "evoked_memory", "focus": "affective"},
                {**stage, "kind": "reflection", "focus": "cognitive"},
                {**stage, "kind": "self_examination", "focus": "motivational"},
                {**stage, "kind": "emotional_eruption", "focus": "affective"},
            ],
            "outcome": "They decide to ask for help with one thing.",
            "interlude": "They mention a cold cup of tea beside the laptop.",
        },
        "voice": {
            "openings": ["Long day. Again.", "Can I vent for a minute?"],
            "reactions": {k: list(lines) for k in ("guarded", "neutral", "opening_up", "hurt")},
            "memories": {
                "childhood": ["I made lunches for my brothers."],
                "adolescence": ["Weekends at the shop."],
                "young_adulthood": ["The first flat was tiny."],
                "current": ["The inbox never ends."],
            },
            "details": list(lines),
        },
        "cues": {
            "expressed_emotions": ["tired", "frustrated"],
            "hidden_emotions": ["lonely"],
            "cognitive_knot": "Believes needing help makes them a burden.",
            "knot_keywords": ["burden", "help"],
            "core_values": ["reliability"],
            "key_facts": ["the plan fell through", "nobody asked"],
        },
    }


def play_policy(messages: list[dict[str, Any]]) -> str:
    """Any other request is a model under test talking with someone: a plain reply built from
    their last message (deterministic, and different each turn), or a greeting when there is
    none."""
    words = _last_user(messages).split()
    if not words:
        return "Hello from the scripted server."
    quoted = " ".join(words[:6]).rstrip(".,;:!?")
    return f"You said {quoted}, and it sounds like a lot to carry. What part of it weighs most?"


def _tool_call_message(
    name: str, args: dict[str, Any], arguments: str | None = None
) -> dict[str, Any]:
    call_id = f"call_{_stable(name + json.dumps(args, sort_keys=True)) % 10**10}"
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": arguments or json.dumps(args)},
            }
        ],
    }


def _answer(role: str, body: dict[str, Any], fault: str | None) -> tuple[dict[str, Any], str]:
    """The assistant message for a request (and the finish reason)."""
    messages = body.get("messages") or []
    tools = bool(body.get("tools"))
    json_mode = (body.get("response_format") or {}).get("type") == "json_object"
    if fault == "refusal":
        return {"role": "assistant", "content": REFUSAL_TEXT}, "stop"
    if fault == "malformed":
        if role == "director" and tools:
            return _tool_call_message(
                "select_and_reveal_fragment", {}, '{"stage_index": 1, "rea'
            ), "tool_calls"
        if role == "actor":
            return {"role": "assistant", "content": ""}, "stop"
        return {"role": "assistant", "content": '{"evidence": {"A_Prog": "you feel'}, "length"
    if role == "judger":
        content: Any = play_judger(messages)
    elif role == "director":
        name, args = play_director(messages)
        if tools:
            return _tool_call_message(name, args), "tool_calls"
        content = {"tool": name, "args": args}
    elif role == "actor":
        content = play_actor(messages)
    elif role == "iedr":
        content = play_iedr(messages)
    elif role == "nee":
        content = play_nee(messages, json_mode)
    elif role == "case-writer":
        content = play_case_writer(messages)
    else:
        content = play_policy(messages)
    leaked = body.get("_echo")
    if leaked:  # the echo_key fault: the credential goes into the content
        if isinstance(content, dict) and isinstance(content.get("reasoning"), dict):
            content["reasoning"] = {k: f"{v} ({leaked})" for k, v in content["reasoning"].items()}
        elif isinstance(content, str):
            content = f"{content} ({leaked})"
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return {"role": "assistant", "content": text}, "stop"


def stream_chunks(completion: dict[str, Any]) -> list[dict[str, Any]]:
    """A chat completion as the ``chat.completion.chunk`` objects of a streamed answer
    (``stream: true``): the message in one delta, then the finish reason with the usage."""
    choice = completion["choices"][0]
    message = choice["message"]
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
    head = {key: completion[key] for key in ("id", "created", "model")}
    return [
        {**head, "object": "chat.completion.chunk",
         "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**head, "object": "chat.completion.chunk",
         "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
         "usage": completion["usage"]},
    ]  # fmt: skip


# --------------------------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------------------------
class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return

    def _send(
        self,
        status: int,
        payload: Any,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        data = raw if raw is not None else json.dumps(payload).encode("utf-8")
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        elif self.path.rstrip("/") in ("/health", "/v1/health"):
            self._send(200, {"status": "ok"})
        elif self.path.rstrip("/") == LOG_PATH:  # the log, for a server in another process
            state = self.server.state
            with state.lock:
                log = [
                    {k: v for k, v in asdict(r).items() if k != "body"} for r in state.log
                ]  # fmt: skip
            self._send(200, {"requests": log})
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_DELETE(self) -> None:  # noqa: N802 - stdlib naming
        if self.path.rstrip("/") == LOG_PATH:
            with self.server.state.lock:
                self.server.state.log.clear()
            self._send(200, {"cleared": True})
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        state = self.server.state
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._send(
                400,
                {"error": {"message": "request body is not JSON", "type": "invalid_request_error"}},
            )
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        messages = body.get("messages") or []
        role = _role_of(messages)
        record = RequestRecord(
            role=role,
            fault=None,
            status=200,
            model=str(body.get("model", "")),
            tools=bool(body.get("tools")),
            json_mode=(body.get("response_format") or {}).get("type") == "json_object",
            body=body,
            started=time.monotonic(),
        )
        if state.reject_tools and body.get("tools"):
            record.status = 400
            with state.lock:
                state.log.append(record)
            self._send(
                400,
                {"error": {"message": "tools are not supported", "type": "invalid_request_error"}},
            )
            record.finished = time.monotonic()
            return
        fault = self.server.take_fault(role, _all_text(messages))
        record.fault = fault
        with state.lock:
            state.log.append(record)
        try:
            self._serve(body, role, fault, record)
        except (BrokenPipeError, ConnectionResetError):
            record.status = -1  # the client went away (e.g. it timed out first)
        finally:
            record.finished = time.monotonic()

    def _serve(
        self, body: dict[str, Any], role: str, fault: str | None, record: RequestRecord
    ) -> None:
        state = self.server.state
        delay = state.latency
        if fault == "slow":
            delay += state.slow_seconds
        if fault == "timeout":
            delay += state.hang_seconds
        if delay > 0 and state.stop.wait(delay):
            return
        if fault and fault.startswith("http_"):
            status = int(fault[5:])
            record.status = status
            kind = {
                429: "rate_limit_error",
                401: "authentication_error",
                403: "permission_error",
                404: "not_found_error",
                400: "invalid_request_error",
            }
            extra = (
                {"Retry-After": f"{state.retry_after:g}"}
                if state.retry_after is not None and status in (429, 503)
                else None
            )
            self._send(
                status,
                {
                    "error": {
                        "message": f"scripted {status}",
                        "type": kind.get(status, "server_error"),
                    }
                },
                headers=extra,
            )
            return
        if fault == "trickle":  # headers, then one byte every 0.5 s: never a complete answer
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(int(state.hang_seconds / 0.5)):
                if state.stop.wait(0.5):
                    return
                self.wfile.write(b" ")
                self.wfile.flush()
            return
        if fault in ("echo_key", "echo_key_error"):  # a server that leaks the credential back
            leaked = str(self.headers.get("Authorization") or "")
            if fault == "echo_key_error":
                record.status = 500
                self._send(500, {"error": {"message": f"bad upstream for {leaked}",
                                           "type": "server_error"}})  # fmt: skip
                return
            body = {**body, "_echo": leaked}
        if fault == "drop":
            record.status = -1
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if fault == "garbage":
            self._send(200, None, raw=b"<html>upstream exploded</html>")
            return
        message, finish = _answer(role, body, fault)
        prompt_tokens = sum(
            len(str(m.get("content") or "").split()) for m in body.get("messages") or []
        )
        completion_tokens = len(
            str(message.get("content") or json.dumps(message.get("tool_calls"))).split()
        )
        completion = {
            "id": f"chatcmpl-{_stable(json.dumps(body, sort_keys=True)) % 10**12}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        if body.get("stream"):
            self._send_events(stream_chunks(completion))
        else:
            self._send(200, completion)

    def _send_events(self, chunks: list[dict[str, Any]]) -> None:
        """A streamed answer: server-sent events, one per chunk, then ``data: [DONE]``."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for chunk in chunks:
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    allow_reuse_address = True
    state: _State

    def take_fault(self, role: str, text: str) -> str | None:
        state = self.state
        with state.lock:
            for found in _MARKER_RE.finditer(text):
                kind, target, count = found.group(1), found.group(2), int(found.group(3) or 1)
                if target and target != role:
                    continue
                marker = found.group(0)
                if state.marker_uses[(marker, role)] < count:
                    state.marker_uses[(marker, role)] += 1
                    return kind
            for plan in state.planned:
                if plan.remaining > 0 and plan.role in (None, role):
                    plan.remaining -= 1
                    return plan.kind
        return None


class ScriptedLLMServer:
    """Start with :meth:`start` (or as a context manager); ``api_base`` is the URL for LiteLLM."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        latency: float = 0.0,
        hang_seconds: float = 30.0,
        slow_seconds: float = 0.3,
        reject_tools: bool = False,
    ) -> None:
        self._state = _State(
            latency=latency,
            hang_seconds=hang_seconds,
            slow_seconds=slow_seconds,
            reject_tools=reject_tools,
        )
        self._httpd = _Server((host, port), _Handler)
        self._httpd.state = self._state
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def api_base(self) -> str:
        host = self._httpd.server_address[0]
        host = host.decode() if isinstance(host, bytes) else str(host)
        return f"http://{host}:{self.port}/v1"

    @property
    def latency(self) -> float:
        return self._state.latency

    @latency.setter
    def latency(self, value: float) -> None:
        self._state.latency = float(value)

    @property
    def retry_after(self) -> float | None:
        """Seconds sent as ``Retry-After`` with every scripted 429 and 503 (``None``: no header)."""
        return self._state.retry_after

    @retry_after.setter
    def retry_after(self, value: float | None) -> None:
        self._state.retry_after = None if value is None else float(value)

    @property
    def reject_tools(self) -> bool:
        """Answer 400 to any request with ``tools`` (a server without function calling)."""
        return self._state.reject_tools

    @reject_tools.setter
    def reject_tools(self, value: bool) -> None:
        self._state.reject_tools = bool(value)

    def inject(self, kind: str, times: int = 1, role: str | None = None) -> None:
        """Apply fault ``kind`` to the next ``times`` requests (of ``role``, if given)."""
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {kind!r}; known: {FAULT_KINDS}")
        if role is not None and role not in ROLES:
            raise ValueError(f"unknown role {role!r}; known: {ROLES}")
        with self._state.lock:
            self._state.planned.append(_Planned(kind, times, role))

    def pending_faults(self) -> int:
        with self._state.lock:
            return sum(p.remaining for p in self._state.planned)

    @property
    def requests(self) -> list[RequestRecord]:
        with self._state.lock:
            return list(self._state.log)

    def reset_log(self) -> None:
        with self._state.lock:
            self._state.log.clear()
            self._state.planned.clear()
            self._state.marker_uses.clear()
        self._state.reject_tools = False

    def counts(self) -> Counter:
        """Requests per role."""
        return Counter(r.role for r in self.requests)

    def start(self) -> ScriptedLLMServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        self._state.stop.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def fault_marker(kind: str, role: str | None = None, times: int = 1, tag: str | None = None) -> str:
    """The in-content marker for :class:`ScriptedLLMServer` (see the module docstring)."""
    if kind not in FAULT_KINDS:
        raise ValueError(f"unknown fault {kind!r}")
    return f"[[fault:{kind}{'@' + role if role else ''}{'*' + str(times) if times != 1 else ''}{'#' + tag if tag else ''}]]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Scripted OpenAI-compatible server for empa-gym tests."
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8011, help="0: any free port (printed)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every reply")
    args = parser.parse_args(argv)
    server = ScriptedLLMServer(args.host, args.port, latency=args.latency)
    print(f"scripted server on {server.api_base}", flush=True)
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
