"""An RL researcher's own loop: gymnasium.make, a policy function, env.step until done, then the
episode's EPM metrics. Runs offline in about a second:

    python examples/rl_loop.py
"""

import gymnasium as gym

import empa_env  # noqa: F401  (registers EMPA-v14 and EMPA-Bench-v14)


def my_policy(messages: list[dict[str, str]]) -> str:
    """Replace with your model. ``messages`` is the chat so far; the simulated user is "user"."""
    last = messages[-1]["content"]
    first_words = " ".join(last.split()[:6])
    return f'It sounds like "{first_words}..." is weighing on you. What part of it stays with you most?'


env = gym.make("EMPA-v14")  # the generated training pool; "EMPA-Bench-v14" is the 30-case suite
obs, info = env.reset(seed=0)
print(f"case {info['case_id']} (P_0 = {info['p0']}, dominant axis {info['dominant_axis']})")
print("user:", obs)

total_reward, done = 0.0, False
while not done:
    reply = my_policy(env.unwrapped.messages)
    obs, reward, terminated, truncated, info = env.step(reply)
    total_reward += reward
    done = terminated or truncated
    print(
        f"turn {info['turn']:2d}  IDR {reward:+.2f}  v_t {info['increment']}  -> user: {obs[:60]}"
    )

epm = info["epm"]
print(f"\noutcome {epm['outcome']} after {epm['turns']} turns, return {total_reward:.2f}")
print(f"RDI {epm['RDI']:.1f}  E_total {epm['E_total']:.1f}  EPM-Index {epm['EPM_Index']:.1f}")
