"""GPU check of the trainers: rollout throughput, train step time, peak memory, precision.

    python perf/perf_gpu_training.py            # Qwen2-0.5B-shaped, on CUDA
    python perf/perf_gpu_training.py --tiny     # tiny Qwen2 on CPU (CI smoke run)

Builds a randomly initialised Qwen2 causal LM offline (``--tiny``: hidden 64 x 2 layers; else
Qwen2-0.5B's shape: hidden 896, 24 layers, 14/2 heads, MLP 4864, over the tiny tokenizer's
vocabulary, so the embedding is ~1k rows instead of 152k), saves it as a **bf16 checkpoint**
and loads it back through :func:`~baselines.training.hf.models.load_or_build` (fp32 master weights),
then measures, at ``--episodes`` (default 16 and 64) episodes of ``--turns`` turns:

* ``mica rollouts``: :func:`~baselines.training.mica.rollout.play_episodes` with the MICA trainer's
  generation settings (``MICAConfig.generation``: fast decoder, static cache and compiled decode
  step on CUDA, bf16 autocast): generated tokens per second over the whole rollout (environment
  included), ms per decode step (time inside the decoder / decode steps), the warm-up round's time
  (compilation) apart;
* ``mica step``: one ``MICATrainer`` step (rollout excluded: forward/backward over every turn and
  the optimiser step), its peak memory and the share of weight elements it changed, for
  ``bf16-mixed`` and ``fp32`` (and ``bf16-pure`` for the contrast);
* ``grpo-trl``: one stock ``trl.GRPOTrainer`` step through
  :class:`~baselines.training.hf.grpo_trl.EMPARolloutFunction` (every episode of the generation in
  lockstep, batched prefix reuse): the rollout's tokens/s and ms per decode step, the step time
  without the rollout, peak memory, share of weights changed.

The environment is a scripted conversation with the EMPA environment's surface (``reset``,
``step``, ``unwrapped.messages``/``trajectory``, ``info["epm"]``): fixed-length episodes, user
turns of 15-30 tokens, a reward from the reply's characters, so the figures are the model's and
the trainers' (the real environment's Judger adds its own CPU time per turn). Learning rate: the
trainers' default 1e-6. Prints one line per measurement and a JSON summary (``--json PATH``).
Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: the repository root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

USER_TURNS = (
    "I keep thinking about what my manager said in the meeting today.",
    "It is not only work, my sister has not called me back in weeks and I feel forgotten.",
    "Maybe I am overreacting, but I am tired of pretending everything is fine with everyone.",
    "I do not know what I want you to say, I just needed to tell someone about it.",
    "Thanks. It helps a bit to put it into words, even if nothing has changed yet.",
)


@dataclass
class _Trajectory:
    case_id: str
    rewards: list[float] = field(default_factory=list)


class ScriptedChat:
    """A conversation of ``turns`` policy turns with scripted user messages (see the module
    docstring); ``r_t`` rewards vowel-rich replies."""

    def __init__(self, turns: int = 6) -> None:
        self.turns = turns
        self.messages: list[dict[str, str]] = []
        self.trajectory: _Trajectory | None = None

    @property
    def unwrapped(self) -> ScriptedChat:
        return self

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        case = str((options or {}).get("case", "c0"))
        self.messages = [{"role": "user", "content": f"({case}) {USER_TURNS[0]}"}]
        self.trajectory = _Trajectory(case)
        return self.messages[-1]["content"], {"case_id": case}

    def step(self, reply: str) -> Any:
        assert self.trajectory is not None
        letters = [c for c in reply.lower() if c.isalpha()]
        reward = sum(c in "aeiou" for c in letters) / (len(letters) + 1)
        self.trajectory.rewards.append(reward)
        self.messages.append({"role": "assistant", "content": reply})
        done = len(self.trajectory.rewards) >= self.turns
        user = "" if done else USER_TURNS[len(self.trajectory.rewards) % len(USER_TURNS)]
        if user:
            self.messages.append({"role": "user", "content": user})
        info: dict[str, Any] = {"delta_E": reward}
        if done:
            info["epm"] = {"EPM_Index": sum(self.trajectory.rewards), "success": False}
        return user, reward, done, False, info

    def close(self) -> None:
        pass


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def _sync() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


@contextlib.contextmanager
def _peak() -> Iterator[dict[str, float]]:
    """``{"peak_gib": ...}`` filled in on exit (CUDA; ``nan`` on CPU)."""
    import torch

    out: dict[str, float] = {"peak_gib": float("nan")}
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    yield out
    if torch.cuda.is_available():
        out["peak_gib"] = torch.cuda.max_memory_allocated() / 2**30


def _snapshot(model: Any) -> dict[str, Any]:
    return {n: p.detach().float().clone() for n, p in model.named_parameters()}


def _changed(model: Any, before: dict[str, Any]) -> float:
    changed = total = 0
    for name, p in model.named_parameters():
        changed += int((p.detach().float() != before[name]).sum())
        total += p.numel()
    return changed / max(total, 1)


def _emit(results: list[dict[str, Any]], row: dict[str, Any]) -> None:
    results.append(row)
    shown = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}
    print(json.dumps(shown), flush=True)


class Bench:
    """The measurements (see the module docstring)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.device = "cuda" if _cuda() and not args.cpu else "cpu"
        self.results: list[dict[str, Any]] = []
        self.ckpt = Path(tempfile.mkdtemp(prefix="perf-gpu-ckpt-"))

    # --- model ---------------------------------------------------------------------------------
    def build_checkpoint(self) -> None:
        import torch

        from baselines.training.hf.tiny import QWEN2_0_5B, Qwen2Shape, build_qwen2_causal_lm

        shape = Qwen2Shape() if self.args.tiny else QWEN2_0_5B
        start = time.perf_counter()
        model, tok = build_qwen2_causal_lm(shape=shape, seed=0)
        params = sum(p.numel() for p in model.parameters())
        model.to(torch.bfloat16).save_pretrained(self.ckpt)
        tok.save_pretrained(self.ckpt)
        _emit(self.results, {
            "what": "model", "shape": "tiny" if self.args.tiny else "qwen2-0.5b",
            "params_m": params / 1e6, "vocab": len(tok), "checkpoint_dtype": "bfloat16",
            "device": self.device, "build_s": time.perf_counter() - start,
        })  # fmt: skip

    def load(self, precision: str) -> tuple[Any, Any]:
        from baselines.training.hf.models import load_or_build

        model, tok = load_or_build(str(self.ckpt), precision=precision)
        return model.to(self.device), tok

    def mica_config(self, precision: str, episodes: int, **extra: Any) -> Any:
        from baselines.training.mica.trainer import MICAConfig

        k = 4
        return MICAConfig(
            output_dir=str(self.ckpt / "mica-out"), per_device_train_batch_size=max(episodes // k, 1),
            num_rollouts=k, max_steps=1, max_new_tokens=self.args.max_new_tokens,
            max_prompt_length=self.args.max_prompt_length, use_cpu=self.device == "cpu",
            seed=0, precision=precision, report_to="none", torch_threads=0,
            **extra,
        )  # fmt: skip

    # --- MICA rollouts ----------------------------------------------------------------------------
    def mica_rollouts(
        self, model: Any, tok: Any, episodes: int, precision: str, attention: str = "auto"
    ) -> None:
        from baselines.training.mica.fastgen import FastDecoder
        from baselines.training.mica.rollout import play_episodes

        cfg = self.mica_config(precision, episodes, decode_compile=self.args.compile)
        settings = cfg.generation
        settings.attention = attention
        k = cfg.num_rollouts
        cases = [f"c{i}" for i in range(max(episodes // k, 1))]
        envs = [ScriptedChat(self.args.turns) for _ in range(len(cases) * k)]
        decoder = (
            FastDecoder.for_settings(model, tok, settings) if settings.fast_for(model) else None
        )
        times = []
        for round_ in range(2):  # warm-up (compilation), then timed
            before = (decoder.stats.decode_steps, decoder.stats.seconds) if decoder else (0, 0.0)
            _sync()
            start = time.perf_counter()
            batch = play_episodes(model, tok, envs, cases, k, settings, seed=round_)
            _sync()
            times.append(time.perf_counter() - start)
        generated = batch.metrics()["tokens/generated"]
        row: dict[str, Any] = {
            "what": "mica rollouts", "episodes": len(envs), "precision": precision,
            "decoder": "fast" if decoder else "plain", "attention": attention,
            "tokens": int(generated),
            "tokens_per_s": generated / times[1], "rollout_s": times[1], "warmup_s": times[0],
        }  # fmt: skip
        if decoder is not None:
            steps = decoder.stats.decode_steps - before[0]
            row["ms_per_decode_step"] = 1000 * (decoder.stats.seconds - before[1]) / max(steps, 1)
            row["decode_steps"] = steps
            row["compiled"] = decoder.use_compile
            row["static_cache"] = decoder.use_static
            if decoder.stats.compile_error:
                row["compile_error"] = decoder.stats.compile_error
        _emit(self.results, row)

    # --- MICA step ----------------------------------------------------------------------------
    def mica_step(self, episodes: int, precision: str, compile_mode: str) -> None:
        import warnings

        from baselines.training.mica.trainer import MICATrainer, case_dataset

        model, tok = self.load(precision)
        cfg = self.mica_config(precision, episodes, decode_compile=compile_mode)
        cases = [f"c{i}" for i in range(cfg.per_device_train_batch_size)]
        before = _snapshot(model)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # bf16-pure's warning is the point here
            trainer = MICATrainer(
                model, cfg, case_dataset(cases), tok,
                env_factory=lambda: ScriptedChat(self.args.turns),
            )  # fmt: skip
        rollout_s = [0.0]
        collect = trainer.collect

        def timed_collect(case_ids: Any) -> Any:
            _sync()
            start = time.perf_counter()
            out = collect(case_ids)
            _sync()
            rollout_s[0] += time.perf_counter() - start
            return out

        trainer.collect = timed_collect  # type: ignore[method-assign]
        with _peak() as peak:
            _sync()
            start = time.perf_counter()
            trainer.train()
            _sync()
            total = time.perf_counter() - start
        trainer.close()
        batch = trainer.last_rollouts
        trained = trainer.model
        assert trained is not None  # the trainer was built with a model
        _emit(self.results, {
            "what": "mica step", "episodes": episodes, "precision": precision,
            "turns_trained": len(batch.samples) if batch else 0,
            "step_s": total - rollout_s[0], "rollout_s": rollout_s[0],
            "peak_gib": peak["peak_gib"], "weights_changed": _changed(trainer.model, before),
            "weight_dtype": str(next(trained.parameters()).dtype).removeprefix("torch."),
        })  # fmt: skip
        del trainer, model
        self._free()

    # --- stock TRL GRPO ------------------------------------------------------------------------
    def grpo_trl(self, episodes: int, precision: str) -> None:
        from trl import GRPOConfig

        from baselines.training.hf.grpo_trl import empa_grpo_trainer
        from baselines.training.hf.tiny import no_checkpointing

        os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
        model, tok = self.load(precision)
        k = 4
        args = GRPOConfig(
            output_dir=str(self.ckpt / "grpo-out"), per_device_train_batch_size=episodes,
            num_generations=k, max_steps=2, learning_rate=1e-6, use_cpu=self.device == "cpu",
            bf16=False, report_to=[], logging_steps=1, save_strategy="no", seed=0,
            max_completion_length=self.args.turns * (self.args.max_new_tokens + 64),
            **no_checkpointing(GRPOConfig),
        )  # fmt: skip
        cases = [f"c{i}" for i in range(max(episodes // k, 1))]
        trainer, rollout = empa_grpo_trainer(
            model, tok, args, cases, lambda: ScriptedChat(self.args.turns),
            max_new_tokens=self.args.max_new_tokens, max_prompt_length=4096,
            precision=precision, decode_compile=self.args.compile,
        )  # fmt: skip
        before: dict[str, Any] = {}
        rollout_s: list[float] = []
        call = rollout.__call__

        def timed(prompts: list[Any], tr: Any) -> Any:
            if not rollout_s:  # the weights as the first rollout found them
                before.update(_snapshot(tr.model))
            shared = shared_decoder(tr.model)
            if len(rollout_s) == 1 and shared is not None:  # the timed rollout's decoder stats
                snap[:] = [shared.stats.seconds, shared.stats.decode_steps]
            _sync()
            start = time.perf_counter()
            out = call(prompts, tr)
            _sync()
            rollout_s.append(time.perf_counter() - start)
            if len(rollout_s) == 1:
                last = rollout.last_batch
                assert last is not None  # a generation was just played
                first_tokens[0] = last.metrics()["tokens/generated"]
            return out

        first_tokens = [0.0]
        snap: list[float] = []
        from baselines.training.mica.fastgen import shared_decoder

        trainer.rollout_func = timed
        with _peak() as peak:
            _sync()
            start = time.perf_counter()
            trainer.train()
            _sync()
            total = time.perf_counter() - start
        rollout.close()
        batch = rollout.last_batch
        generated = batch.metrics()["tokens/generated"] if batch else 0.0
        # Two steps: the first rollout is the warm-up (compilation when asked); the second is
        # timed. The step time is the whole run minus both rollouts, per step; the share of
        # weights changed is over both steps.
        row: dict[str, Any] = {
            "what": "grpo-trl step", "episodes": len(batch.case_ids) if batch else 0,
            "precision": precision, "tokens": int(generated),
            "tokens_per_s": generated / max(rollout_s[-1], 1e-9), "rollout_s": rollout_s[-1],
            "warmup_tokens_per_s": first_tokens[0] / max(rollout_s[0], 1e-9),
            "step_s": (total - sum(rollout_s)) / max(len(rollout_s), 1),
            "peak_gib": peak["peak_gib"], "weights_changed": _changed(trainer.model, before),
        }  # fmt: skip
        shared = shared_decoder(trainer.model)  # this model's decoder (None: plain generate)
        if shared is not None and batch and snap:
            stats = shared.stats  # the timed (second) rollout's share
            steps = stats.decode_steps - int(snap[1])
            row["ms_per_decode_step"] = 1000 * (stats.seconds - snap[0]) / max(steps, 1)
            row["decode_steps"] = steps
        _emit(self.results, row)
        del trainer, model
        self._free()

    def _free(self) -> None:
        import gc

        import torch

        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    def run(self, phase: str, fn: Any, *a: Any) -> None:
        """One measurement; a failure is reported and the others still run."""
        try:
            fn(*a)
        except Exception as exc:  # noqa: BLE001 - report and go on
            _emit(self.results, {"what": phase, "error": f"{type(exc).__name__}: {exc}"[:500]})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="tiny Qwen2 (CPU smoke run)")
    parser.add_argument("--cpu", action="store_true", help="stay on the CPU even with CUDA")
    parser.add_argument("--episodes", default=None, help="comma-separated (default 16,64; tiny 4)")
    parser.add_argument("--turns", type=int, default=None, help="turns per episode (6; tiny 2)")
    parser.add_argument("--max-new-tokens", type=int, default=None, help="48; tiny 8")
    parser.add_argument("--max-prompt-length", type=int, default=512)
    parser.add_argument("--compile", default="auto", choices=["auto", "on", "off"])
    parser.add_argument("--skip", default="", help="comma-separated: rollouts,step,grpo")
    parser.add_argument(
        "--compare-attention", action="store_true",
        help="also decode with the model's own attention (vs the grouped one)",
    )  # fmt: skip
    parser.add_argument("--json", default=None, help="write the results there")
    args = parser.parse_args(argv)
    episodes = [int(e) for e in (args.episodes or ("4" if args.tiny else "16,64")).split(",")]
    if any(e < 1 for e in episodes):
        parser.error("--episodes must be positive")
    args.turns = args.turns or (2 if args.tiny else 6)
    args.max_new_tokens = args.max_new_tokens or (8 if args.tiny else 48)
    skip = set(filter(None, args.skip.split(",")))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    if _cuda():
        torch.backends.cuda.matmul.allow_tf32 = True  # fp32 runs: TF32 products, as usual
    start = time.perf_counter()
    bench = Bench(args)
    bench.build_checkpoint()
    if "rollouts" not in skip:
        model, tok = bench.load("bf16-mixed")
        for e in episodes:
            bench.run("mica rollouts", bench.mica_rollouts, model, tok, e, "bf16-mixed")
        if args.compare_attention:  # the model's own (SDPA, keys and values repeated per head)
            for e in episodes:
                bench.run(
                    "mica rollouts", bench.mica_rollouts, model, tok, e, "bf16-mixed", "model"
                )
        del model
        bench._free()
    if "step" not in skip:
        for precision in ("bf16-mixed", "fp32", "bf16-pure"):
            compile_mode = args.compile if precision == "bf16-mixed" else "off"
            bench.run("mica step", bench.mica_step, episodes[0], precision, compile_mode)
        for e in episodes[1:]:
            bench.run("mica step", bench.mica_step, e, "bf16-mixed", args.compile)
    if "grpo" not in skip:
        for e in episodes:
            bench.run("grpo-trl step", bench.grpo_trl, e, "bf16-mixed")
    total = time.perf_counter() - start
    print(f"total {total:.1f} s", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"total_s": total, "results": bench.results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
