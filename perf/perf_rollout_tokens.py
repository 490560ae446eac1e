"""Tokens processed and time per episode of LM rollouts, re-reading the history every turn vs
reusing the prefix (one token stream per conversation, its KV cache carried across turns).

    python -m perf.perf_rollout_tokens                         # Llama 256 x 4, 12 turns
    python -m perf.perf_rollout_tokens --hidden 64 --layers 2 --episodes 2 --turns 4

Three ways to play the same ``--episodes`` episodes of the real ``EMPA-v14`` (offline roles,
lexicon judger, ``max_turns = --turns``, the episode cannot end earlier) with a randomly
initialised Llama (greedy replies of ``--max-new-tokens``):

* ``re-read, batched``: the default rollout: every turn chat-templates each history anew and
  reads it in full, one left-padded ``generate`` over the running episodes;
* ``re-read, per episode``: the same token stream as with reuse, read in full every turn (a
  fresh KV cache for the turn's own tokens), one ``generate`` per episode (what reuse is
  compared with token for token);
* ``reuse``: ``GenerationSettings.reuse_prefix``: each turn reads only its new tokens.

Prints, per mode: prompt tokens read per episode (total and at the first and last turn), tokens
generated per episode, and seconds per episode (one warm-up episode is not timed). Figures only:
nothing is asserted.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

MODES = ("re-read, batched", "re-read, per episode", "reuse")


def _episodes_without_cache(model: Any, tok: Any, envs: Sequence[Any], cases: Sequence[str],
                            settings: Any) -> list[list[tuple[int, int, int]]]:  # fmt: skip
    """``(prompt tokens, prompt tokens read, generated)`` per turn of each episode, reading the
    stream in full every turn."""
    from baselines.training.mica.prefix import ConversationStream

    out = []
    for i, (env, case) in enumerate(zip(envs, cases, strict=True)):
        stream = ConversationStream(reuse=False)
        env.reset(seed=i, options={"case": case})
        turns, done = [], False
        while not done:
            prompt = stream.prompt(tok, env.unwrapped.messages, settings.max_prompt_length)
            completion, read = stream.generate(model, tok, settings)
            turns.append((len(prompt), read, len(completion)))
            reply = tok.decode(completion, skip_special_tokens=True).strip()
            _, _, terminated, truncated, _ = env.step(reply)
            done = terminated or truncated
        out.append(turns)
    return out


def measure(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """Per mode: tokens per episode and seconds per episode."""
    import gymnasium as gym
    import torch

    import empa_env  # noqa: F401  (registers EMPA-v14)
    from baselines.training.hf.tiny import TinyConfig, build_tiny_causal_lm
    from baselines.training.mica.rollout import GenerationSettings, play_episodes
    from baselines.training.mica.trainer import env_case_ids

    torch.set_num_threads(args.threads)
    cfg = TinyConfig(
        hidden_size=args.hidden, intermediate_size=2 * args.hidden, num_hidden_layers=args.layers
    )
    model, tok = build_tiny_causal_lm(cfg=cfg, seed=0)
    env_kwargs = {
        "max_turns": args.turns, "judger": "lexicon",
        "epm_overrides": {"min_turns": args.turns},
    }  # fmt: skip
    envs = [gym.make("EMPA-v14", **env_kwargs) for _ in range(args.episodes)]
    cases = env_case_ids(envs[0])[: args.episodes]
    results: dict[str, dict[str, float]] = {}
    for mode in MODES:
        settings = GenerationSettings(
            max_new_tokens=args.max_new_tokens, greedy=True, max_prompt_length=8192,
            reuse_prefix=mode == "reuse",
        )  # fmt: skip
        for warm_up in (True, False):
            n = 1 if warm_up else args.episodes
            start = time.perf_counter()
            if mode == "re-read, per episode":
                per_episode = _episodes_without_cache(model, tok, envs[:n], cases[:n], settings)
            else:
                batch = play_episodes(model, tok, envs[:n], cases[:n], 1, settings)
                per_episode = [
                    [
                        (len(s.prompt_ids), s.prompt_tokens_read, len(s.completion_ids))
                        for s in sorted(batch.samples, key=lambda s: s.turn)
                        if s.case_index == b
                    ]
                    for b in range(n)
                ]
            seconds = time.perf_counter() - start
        read = [sum(t[1] for t in ep) for ep in per_episode]
        results[mode] = {
            "seconds_per_episode": seconds / args.episodes,
            "prompt_read_per_episode": sum(read) / len(read),
            "generated_per_episode": sum(t[2] for ep in per_episode for t in ep) / len(read),
            "read_first_turn": sum(ep[0][1] for ep in per_episode) / len(read),
            "read_last_turn": sum(ep[-1][1] for ep in per_episode) / len(read),
            "history_last_turn": sum(ep[-1][0] for ep in per_episode) / len(read),
            "turns": sum(len(ep) for ep in per_episode) / len(read),
        }
    for env in envs:
        env.close()
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, default=256, help="Llama hidden size")
    parser.add_argument("--layers", type=int, default=4, help="Llama layers")
    parser.add_argument("--episodes", type=int, default=4, help="timed episodes per mode")
    parser.add_argument("--turns", type=int, default=12, help="turns per episode")
    parser.add_argument("--max-new-tokens", type=int, default=32, help="reply length cap")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    args = parser.parse_args(argv)
    results = measure(args)
    print(
        f"Llama hidden {args.hidden} x {args.layers} layers, {args.episodes} episodes of "
        f"{args.turns} turns, greedy replies <= {args.max_new_tokens} tokens, "
        f"{args.threads} torch thread(s)"
    )
    header = (
        f"{'mode':<22}{'s/episode':>10}{'read/ep':>9}{'gen/ep':>8}"
        f"{'read t=0':>10}{'read last':>10}{'history last':>13}"
    )
    print(header)
    for mode, r in results.items():
        print(
            f"{mode:<22}{r['seconds_per_episode']:>10.2f}{r['prompt_read_per_episode']:>9.0f}"
            f"{r['generated_per_episode']:>8.0f}{r['read_first_turn']:>10.0f}"
            f"{r['read_last_turn']:>10.0f}{r['history_last_turn']:>13.0f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
