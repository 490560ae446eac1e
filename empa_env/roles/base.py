"""Role interfaces. Each role has a synchronous and an asynchronous method; implementations
subclass the base and override the side that is natural to them (offline roles: sync; LLM roles:
async). The other side is derived, so there is one implementation of each role's logic."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from empa_env.roles.views import ActorView, DirectorAction, DirectorView, JudgeView
from empa_env.sync import run_sync
from epm.trajectory import Judgement


class _Role:
    #: Short identifier recorded with results (e.g. "offline", "openai/gpt-4o").
    name: str = "role"
    #: Pairs of (sync, async) methods; a concrete role must override at least one of each pair.
    _pairs: tuple[tuple[str, str], ...] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("__abstract_role__"):
            return
        for sync_name, async_name in cls._pairs:
            base = next(b for b in cls.__mro__ if b.__dict__.get("__abstract_role__"))
            if getattr(cls, sync_name) is getattr(base, sync_name) and getattr(
                cls, async_name
            ) is getattr(base, async_name):
                raise TypeError(f"{cls.__name__} must implement {sync_name}() or {async_name}()")

    # A role may declare ``languages`` (:class:`PlaysLanguages`): the case languages it can play.

    def describe(self) -> dict[str, str]:
        """What goes into a run's configuration fingerprint."""
        return {"class": type(self).__name__, "name": self.name}


@runtime_checkable
class PlaysLanguages(Protocol):
    """The part of the role contract that says which case languages a role can play.

    ``languages`` holds :mod:`empa_env.languages` codes; ``None`` (or a role without the
    attribute) plays any language. The environment refuses, at ``reset``, a case in a language
    one of its roles cannot play, instead of scoring it wrongly (an attribute or a property)."""

    @property
    def languages(self) -> tuple[str, ...] | None: ...


class Judger(_Role):
    """Rates one reply: MDEP-PR levels with evidence. Never returns scores."""

    __abstract_role__ = True
    _pairs = (("judge", "ajudge"),)

    def judge(self, view: JudgeView) -> Judgement:
        return run_sync(self.ajudge(view))

    async def ajudge(self, view: JudgeView) -> Judgement:
        return self.judge(view)

    def judge_batch(self, views: Sequence[JudgeView]) -> list[Judgement]:
        """Rate several replies in one call (one per environment of a lockstep batch: see
        :func:`empa_env.env.judge_ahead`). Each result equals ``judge(view)``; a judge whose
        work batches (an encoder's forward pass) overrides this loop."""
        return [self.judge(v) for v in views]


class Actor(_Role):
    """The simulated user: opens the conversation and answers each reply."""

    __abstract_role__ = True
    _pairs = (("open", "aopen"), ("respond", "arespond"))

    def open(self, view: ActorView) -> str:
        return run_sync(self.aopen(view))

    async def aopen(self, view: ActorView) -> str:
        return self.open(view)

    def respond(self, view: ActorView) -> str:
        return run_sync(self.arespond(view))

    async def arespond(self, view: ActorView) -> str:
        return self.respond(view)


class Director(_Role):
    """The hidden orchestrator: one tool call per turn."""

    __abstract_role__ = True
    _pairs = (("direct", "adirect"),)

    def direct(self, view: DirectorView) -> DirectorAction:
        return run_sync(self.adirect(view))

    async def adirect(self, view: DirectorView) -> DirectorAction:
        return self.direct(view)
