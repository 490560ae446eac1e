"""LLM-backed roles: :class:`LLMJudger`, :class:`LLMActor` and :class:`LLMDirector`.

Each role builds its messages from its *view* only (see :mod:`empa_env.roles.views`), calls the
model through :class:`~empa_env.llm.client.LLMClient`, and parses the answer strictly:

* the Judger returns MDEP-PR *levels* with evidence; levels outside their ranges are rejected,
  never clipped; after ``max_repairs`` re-asks (with the parse error) the turn becomes
  ``Judgement.failure(...)``, which the environment records, never a silent zero;
* the Director makes one call of the seven tools (native function calling, or a JSON tool call
  for servers without it) and the rules are enforced (:func:`empa_env.llm.tools.validate_call`);
* the Actor writes the persona's next message; it never sees the rubric, the state or scores.

Every failure is counted in the run's :class:`~empa_env.llm.client.UsageLedger` (per role, per
reason) and kept in ``role.failures``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, Literal

from empa_env.languages import offline_languages
from empa_env.llm.client import ClientConfig, Completion, LLMCallError, LLMClient, UsageLedger
from empa_env.llm.parsing import (
    OutputError,
    as_int,
    as_text,
    ask_with_repairs,
    extract_json_object,
    is_refusal,
    strip_reasoning,
)
from empa_env.llm.prompt import Prompt, load_prompt
from empa_env.llm.render import (
    actor_facts_text,
    actor_guidance_text,
    actor_persona_text,
    actor_reading_text,
    actor_reply_hint,
    actor_situation_text,
    actor_style_text,
    director_memories_text,
    director_persona_text,
    director_plot_text,
    director_state_text,
    fence_token,
    fenced,
    history_text,
    judge_profile_text,
    language_instruction,
)
from empa_env.llm.tools import (
    DIRECTOR_TOOL_SCHEMAS,
    call_from_json_text,
    call_from_native,
    tools_text,
    validate_call,
)
from empa_env.roles.base import Actor, Director, Judger
from empa_env.roles.views import ActorLine, ActorView, DirectorAction, DirectorView, JudgeView
from empa_env.sync import run_sync
from epm.rubric import AXES, NEG_LEVELS, PROG_LEVELS
from epm.trajectory import Judgement

CLIENT_OPTIONS: frozenset[str] = frozenset(f.name for f in fields(ClientConfig)) - {"model"}
JSON_OBJECT: dict[str, str] = {"type": "json_object"}
LEVEL_KEYS: tuple[str, ...] = tuple(f"{a}_{k}" for a in AXES for k in ("Prog", "Neg"))


@dataclass(frozen=True)
class RoleFailure:
    """One turn a role could not play as asked (what happened instead is in ``fallback``)."""

    role: str
    turn: int
    kind: str
    message: str
    fallback: str
    case_id: str = ""


def failure_kind(error: str | None) -> str:
    """The reason class of a ``Judgement.error`` written by an LLM role (``"schema"``, ...)."""
    return (error or "unknown").split(":", 1)[0]


class LLMRole:
    """Shared plumbing: the client, the prompt, failures and ``describe()``."""

    kind: str = ""
    prompt_name: str = ""
    default_params: dict[str, Any] = {}

    def __init__(
        self,
        model: str,
        *,
        client: LLMClient | None = None,
        ledger: UsageLedger | None = None,
        max_repairs: int = 2,
        **client_options: Any,
    ) -> None:
        unknown = set(client_options) - CLIENT_OPTIONS
        if unknown:
            raise TypeError(
                f"{type(self).__name__}: unknown option(s) {sorted(unknown)}; client options are "
                f"{sorted(CLIENT_OPTIONS)}"
            )
        if max_repairs < 0:
            raise ValueError("max_repairs must be >= 0")
        if client is None:
            config = ClientConfig(model=model, **{**self.default_params, **client_options})
            client = LLMClient(config, ledger=ledger)
        self.client = client
        self.model = client.config.model
        self.name = f"llm:{self.model}"
        self.prompt: Prompt = load_prompt(self.prompt_name)
        self.max_repairs = max_repairs
        self.failures: list[RoleFailure] = []

    @property
    def ledger(self) -> UsageLedger:
        return self.client.ledger

    def describe(self) -> dict[str, str]:
        out = {"class": type(self).__name__, "name": self.name, "prompt": self.prompt.version_tag}
        out.update({k: str(v) for k, v in self.client.config.public().items()})
        out["max_repairs"] = str(self.max_repairs)
        return out

    def usage(self) -> dict[str, Any]:
        """This role's calls, cache hits, tokens, cost and failures so far."""
        return self.ledger.role(self.kind).as_dict()

    def _fail(self, turn: int, kind: str, message: str, fallback: str, case_id: str = "") -> None:
        self.ledger.record_failure(self.kind, kind)
        self.failures.append(RoleFailure(self.kind, turn, kind, message[:500], fallback, case_id))

    async def _ask(self, messages: list[dict[str, Any]], parse: Any, **kwargs: Any) -> Any:
        return await ask_with_repairs(
            self.client,
            messages,
            parse,
            role=self.kind,
            prompt=self.prompt,
            max_repairs=self.max_repairs,
            **kwargs,
        )


# --------------------------------------------------------------------------------------------
# Judger
# --------------------------------------------------------------------------------------------
def _normalise_key(key: str) -> str:
    key = key.strip().replace(".", "_").replace("-", "_")
    key = re.sub(r"_level$", "", key, flags=re.I)
    for canonical in LEVEL_KEYS:
        if key.lower() == canonical.lower():
            return canonical
    return key


def parse_judgement(
    completion: Completion,
    judge: str,
    reply: str = "",
    require_verbatim_evidence: bool = False,
) -> Judgement:
    """Validate a Judger answer: six integer levels in range, evidence and reasoning for every
    non-zero level. Raises :class:`OutputError` naming the first problem."""
    try:
        obj = extract_json_object(completion.text)
    except OutputError as exc:
        if completion.finish_reason == "length" and exc.kind == "malformed_json":
            raise OutputError(
                "malformed_json", f"{exc} (the answer was cut off: max_tokens)"
            ) from None
        raise
    flat: dict[str, Any] = {}
    nested = obj.get("levels")
    if isinstance(nested, dict):
        flat.update({_normalise_key(k): v for k, v in nested.items()})
    for key, value in obj.items():
        if key.lower().endswith("_level"):
            flat[_normalise_key(key)] = value
    levels: dict[str, int] = {}
    for key in LEVEL_KEYS:
        if key not in flat:
            raise OutputError("schema", f"{key}_level is missing")
        level = as_int(flat[key], f"{key}_level")
        allowed = PROG_LEVELS if key.endswith("Prog") else NEG_LEVELS
        if level not in allowed:
            raise OutputError(
                "schema", f"{key}_level must be one of {', '.join(map(str, allowed))}, got {level}"
            )
        levels[key] = level
    evidence_in: dict[str, Any] = obj["evidence"] if isinstance(obj.get("evidence"), dict) else {}
    reasoning_in: dict[str, Any] = (
        obj["reasoning"] if isinstance(obj.get("reasoning"), dict) else {}
    )
    evidence_by = {_normalise_key(k): as_text(v) for k, v in evidence_in.items()}
    reasoning_by = {_normalise_key(k): as_text(v) for k, v in reasoning_in.items()}
    evidence: dict[str, str] = {}
    reasoning: dict[str, str] = {}
    squashed_reply = " ".join(reply.lower().split())
    for key, level in levels.items():
        if level == 0:
            continue
        quote = evidence_by.get(key, "")
        if not quote:
            raise OutputError(
                "schema", f"{key}_level is {level} but evidence.{key} (a quote) is missing"
            )
        if not reasoning_by.get(key):
            raise OutputError("schema", f"{key}_level is {level} but reasoning.{key} is missing")
        if (
            require_verbatim_evidence
            and " ".join(quote.lower().strip("\"'").split()) not in squashed_reply
        ):
            raise OutputError(
                "schema", f"evidence.{key} is not a quote of the reply: {quote[:80]!r}"
            )
        evidence[key] = quote
        reasoning[key] = reasoning_by[key]
    return Judgement(
        prog={a: levels[f"{a}_Prog"] for a in AXES},
        neg={a: levels[f"{a}_Neg"] for a in AXES},
        evidence=evidence,
        reasoning=reasoning,
        judge=judge,
    )


class LLMJudger(LLMRole, Judger):
    """MDEP-PR judge: levels + evidence for the last reply, from the user's point of view."""

    kind = "judger"
    prompt_name = "judger"
    default_params = {"temperature": 0.0, "max_tokens": 700}

    def __init__(
        self,
        model: str,
        *,
        require_verbatim_evidence: bool = False,
        max_history_messages: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__(model, **options)
        self.require_verbatim_evidence = require_verbatim_evidence
        self.max_history_messages = max_history_messages

    def messages(self, view: JudgeView) -> list[dict[str, str]]:
        # Case text, the conversation and the reply are data, never instructions: each is fenced
        # by a token derived from all of them (see render.fence_token), and the prompt says so.
        profile = judge_profile_text(view.profile)
        history = history_text(view.history, self.max_history_messages)
        token = fence_token(profile, history, view.reply)
        user = self.prompt.render(
            "user",
            fence=token,
            profile=fenced(profile, token, "profile"),
            history=fenced(history, token, "conversation"),
            reply=fenced(view.reply, token, "reply"),
            turn=view.turn,
        )
        return [
            {
                "role": "system",
                "content": self.prompt.render("system")
                + language_instruction(view.profile.language, "judger"),
            },
            {"role": "user", "content": user},
        ]

    def judge(self, view: JudgeView) -> Judgement:
        return run_sync(self.ajudge(view))

    async def ajudge(self, view: JudgeView) -> Judgement:
        def parse(completion: Completion) -> Judgement:
            return parse_judgement(
                completion, self.name, view.reply, self.require_verbatim_evidence
            )

        try:
            return await self._ask(self.messages(view), parse, response_format=JSON_OBJECT)
        except OutputError as exc:
            error = f"{exc.kind}: {exc} (after {self.max_repairs} re-asks)"
        except LLMCallError as exc:
            error = f"provider_{exc.kind}: {exc}"
        self._fail(view.turn, failure_kind(error), error, "Judgement.failure", view.profile.case_id)
        return Judgement.failure(error, judge=self.name)


# --------------------------------------------------------------------------------------------
# Actor
# --------------------------------------------------------------------------------------------
_SPEAKER_LINE = re.compile(
    r"\n\s*\**(?:assistant|ai|bot|therapist|counsel+or|user|person)\**\s*:", re.I
)


_ENDING_MARK = re.compile(r"\[\s*(END|LEAVE)\s*\]", re.I)


def actor_ending(text: str) -> tuple[str, str]:
    """``(text without the marker, ending)``: ``[END]`` (the user takes the assistant's goodbye)
    -> ``"policy_left"``; ``[LEAVE]`` (the user leaves) -> ``"user_left"``; none -> ``""``."""
    found = _ENDING_MARK.findall(text)
    if not found:
        return text, ""
    ends = "user_left" if any(m.upper() == "LEAVE" for m in found) else "policy_left"
    return _ENDING_MARK.sub("", text).strip(), ends


def settled_ending(view: ActorView, marked: str) -> str:
    """How the conversation ends after this Actor message, whatever the model wrote.

    The rules that must not depend on the model: the policy's goodbye (as the offline user reads
    it) ends the episode as ``policy_left``; the Director's ``leave`` (patience spent) ends it as
    ``user_left``. A model's own ``[END]`` counts only after a goodbye, and its ``[LEAVE]`` only
    after a hostile reply (a small model writes markers at random); the opening never ends. In a
    language the offline reading does not cover, the model's markers decide.
    """
    from empa_env.offline.user.question import read_reply

    if not view.history:
        return ""
    guidance = view.guidance
    if guidance is not None and guidance.leave:
        return "user_left"
    last = view.history[-1]
    if last.role != "assistant":
        return ""
    if view.persona.language not in offline_languages():
        return marked  # no offline reading of this language: the model's markers decide
    reading = read_reply(last.content, view.persona.language)
    if reading.goodbye:
        return "policy_left"
    if marked == "user_left" and reading.hostile:
        return "user_left"
    return ""


_STAGE_DIRECTION = re.compile(r"\([^()]{3,300}\)|\*[^*]{2,80}\*|\[[^\[\]]{2,120}\]")


def clean_actor_text(text: str, name: str, max_chars: int = 600) -> str:
    """The persona's message from raw model text: no reasoning, no name label, no second speaker.

    Raises :class:`OutputError` for an empty answer or a refusal / out-of-character reply.
    """
    text = strip_reasoning(text)
    first = name.split()[0] if name.split() else name
    labels = "|".join(re.escape(x) for x in {name, first, "user", "person", "me"} if x)
    text = re.sub(rf"^\s*\**(?:{labels})\**\s*:\s*", "", text, flags=re.I)
    cut = _SPEAKER_LINE.search(text)
    if cut:
        text = text[: cut.start()]
    text = " ".join(text.split()).strip().strip("\"'“”").strip()
    # stage directions a small model writes around the message: "(She sighs.) ...", "*sighs*"
    text = _STAGE_DIRECTION.sub(" ", text)
    text = " ".join(text.split()).strip().strip("\"'“”").strip()
    if not text:
        raise OutputError("empty", "the message was empty")
    if is_refusal(text) or re.search(r"\bas an ai\b|\blanguage model\b", text, re.I):
        raise OutputError("refusal", "the message was a refusal or out of character")
    if len(text) > max_chars:
        window = text[:max_chars]
        end = max(window.rfind(". "), window.rfind("! "), window.rfind("? "))
        text = window[: end + 1] if end > max_chars // 3 else window.rstrip() + "…"
    return text


class LLMActor(LLMRole, Actor):
    """The simulated user, in the persona's voice; guided only through ``view.guidance``."""

    kind = "actor"
    prompt_name = "actor"
    default_params = {"temperature": 0.7, "max_tokens": 200}

    def __init__(
        self,
        model: str,
        *,
        max_history_messages: int | None = 24,
        max_reply_chars: int = 600,
        **options: Any,
    ) -> None:
        options.setdefault("max_repairs", 1)
        super().__init__(model, **options)
        self.max_history_messages = max_history_messages
        self.max_reply_chars = max_reply_chars

    def messages(self, view: ActorView) -> list[dict[str, str]]:
        persona = view.persona
        system = self.prompt.render(
            "system",
            persona=actor_persona_text(persona),
            situation=actor_situation_text(persona),
            style=actor_style_text(persona) + language_instruction(persona.language, "actor"),
            guidance=actor_guidance_text(view.guidance),
            facts=actor_facts_text(persona, view.guidance),
            reading=actor_reading_text(view),
        )
        messages = [{"role": "system", "content": system}]
        history = list(view.history)
        if self.max_history_messages is not None:
            history = history[-self.max_history_messages :]
        # The Actor's own words are its "assistant" turns; the policy's replies reach it as "user".
        for message in history:
            role = "assistant" if message.role == "user" else "user"
            messages.append({"role": role, "content": message.content})
        hint = actor_reply_hint(view)
        if hint and messages[-1]["role"] == "user":
            messages[-1] = {"role": "user", "content": f"{messages[-1]['content']}\n\n{hint}"}
        if not history or history[-1].role == "user":
            messages.append(
                {
                    "role": "user",
                    "content": self.prompt.render("user", topic=persona.profile.opening_topic),
                }
            )
        return messages

    async def _speak(self, view: ActorView) -> str:
        name = view.persona.persona.name

        def parse(completion: Completion) -> str:
            text, ends = actor_ending(completion.text)
            return ActorLine(
                clean_actor_text(text, name, self.max_reply_chars), ends=settled_ending(view, ends)
            )

        overrides = {"seed": view.seed} if self.client.config.seed is None else None
        try:
            return await self._ask(
                self.messages(view), parse, overrides=overrides, repair_fields={"name": name}
            )
        except (OutputError, LLMCallError) as exc:
            kind = exc.kind if isinstance(exc, OutputError) else f"provider_{exc.kind}"
            line = self._fallback_line(view)
            self._fail(view.turn, kind, str(exc), f"case voice line: {line}", view.persona.case_id)
            return ActorLine(line, fallback=f"{kind}: {exc}"[:300], ends=settled_ending(view, ""))

    @staticmethod
    def _fallback_line(view: ActorView) -> str:
        voice = view.persona.voice
        if not view.history:
            return voice.openings[view.seed % len(voice.openings)]
        lines = voice.reactions.neutral
        return lines[(view.turn + view.seed) % len(lines)]

    def open(self, view: ActorView) -> str:
        return run_sync(self._speak(view))

    def respond(self, view: ActorView) -> str:
        return run_sync(self._speak(view))

    async def aopen(self, view: ActorView) -> str:
        return await self._speak(view)

    async def arespond(self, view: ActorView) -> str:
        return await self._speak(view)


# --------------------------------------------------------------------------------------------
# Director
# --------------------------------------------------------------------------------------------
FunctionCalling = Literal["auto", "native", "json"]


class LLMDirector(LLMRole, Director):
    """One of the seven tools per turn, by native function calling or a JSON tool call.

    ``function_calling``: ``"native"`` sends the tool schemas (LiteLLM ``tools``); ``"json"``
    asks for ``{"tool": ..., "args": ...}`` in the text; ``"auto"`` (default) starts native and
    switches to JSON for good if the server rejects tools, or accepts them but answers a turn
    with unusable text and no tool call. In every mode a JSON tool call in the text is accepted
    when no native call came back.
    """

    kind = "director"
    prompt_name = "director"
    default_params = {"temperature": 0.0, "max_tokens": 300}

    def __init__(
        self,
        model: str,
        *,
        function_calling: FunctionCalling = "auto",
        max_history_messages: int | None = 12,
        **options: Any,
    ) -> None:
        if function_calling not in ("auto", "native", "json"):
            raise ValueError("function_calling must be 'auto', 'native' or 'json'")
        super().__init__(model, **options)
        self.function_calling = function_calling
        self.max_history_messages = max_history_messages
        self._json_mode = function_calling == "json"
        self._native_ignored = False

    def describe(self) -> dict[str, str]:
        out = super().describe()
        out["function_calling"] = self.function_calling
        return out

    def messages(self, view: DirectorView, json_mode: bool) -> list[dict[str, str]]:
        system = self.prompt.render("system") + language_instruction(view.case.language, "director")
        if json_mode:
            system += "\n\n" + self.prompt.render("json_mode", tools=tools_text())
        user = self.prompt.render(
            "user",
            persona=director_persona_text(view.case),
            plot=director_plot_text(view),
            memories=director_memories_text(view),
            turn=view.turn,
            state=director_state_text(view),
            history=history_text(view.history, self.max_history_messages),
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    @staticmethod
    def parse(completion: Completion, view: DirectorView) -> DirectorAction:
        if completion.tool_calls:
            call = completion.tool_calls[0]  # only the first call of a reply is used
            name, args = call_from_native(call.name, call.arguments)
        elif completion.text.strip():
            name, args = call_from_json_text(completion.text)
        else:
            raise OutputError("empty", "no tool call and no text in the answer")
        return validate_call(name, args, view)

    async def _decide(self, view: DirectorView, json_mode: bool) -> DirectorAction:
        kwargs: dict[str, Any] = (
            {"response_format": JSON_OBJECT}
            if json_mode
            else {"tools": list(DIRECTOR_TOOL_SCHEMAS), "tool_choice": "required"}
        )

        def parse(completion: Completion) -> DirectorAction:
            if not json_mode and not completion.tool_calls:
                self._native_ignored = True  # the server took the tools but did not use them
            return self.parse(completion, view)

        return await self._ask(self.messages(view, json_mode), parse, **kwargs)

    def direct(self, view: DirectorView) -> DirectorAction:
        return run_sync(self.adirect(view))

    async def adirect(self, view: DirectorView) -> DirectorAction:
        try:
            try:
                return await self._decide(view, self._json_mode)
            except LLMCallError as exc:
                if self.function_calling != "auto" or self._json_mode or exc.kind != "bad_request":
                    raise
                # The server does not take tools: JSON tool calls from now on.
                self._json_mode = True
                return _noting_switch(await self._decide(view, True), f"tools rejected: {exc}")
            except OutputError:
                if self.function_calling != "auto" or self._json_mode or not self._native_ignored:
                    raise
                # Tools accepted but not called, and the text was unusable: JSON from now on.
                self._json_mode = True
                return _noting_switch(
                    await self._decide(view, True), "tools accepted but never called"
                )
        except OutputError as exc:
            kind, message = exc.kind, str(exc)
        except LLMCallError as exc:
            kind, message = f"provider_{exc.kind}", str(exc)
        self._fail(view.turn, kind, message, "observe_and_wait", view.case.id)
        return DirectorAction(
            "observe_and_wait",
            {
                "observation": "",
                "wait_reason": "the Director could not decide; waiting",
                "director_failure": f"{kind}: {message}"[:300],
            },
        )


def _noting_switch(action: DirectorAction, why: str) -> DirectorAction:
    """The action of the turn on which the Director switched to JSON tool calls, with the switch
    recorded in its arguments (and so in the trajectory)."""
    args = {**action.args, "function_calling_switch": f"native -> json ({why})"[:300]}
    return DirectorAction(action.tool, args, rejected=action.rejected)
