"""EMPA served to OpenEnv clients (the openenv extra): the one-command server, then OpenEnv's
own ``GenericEnvClient`` and the typed ``EMPAEnvClient`` play an episode each (~30 s):

    python examples/openenv_served.py

The server is the command you would run yourself (``empa serve`` is the same):

    python -m empa_env.integrations.openenv.server --env EMPA-Bench-v14 --port 8000
"""

import socket
import subprocess
import sys
import time
import urllib.request

from openenv import GenericEnvClient

from empa_env.integrations.openenv import EMPAAction, EMPAEnvClient

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
server = subprocess.Popen(
    [sys.executable, "-m", "empa_env.integrations.openenv.server", "--env", "EMPA-Bench-v14",
     "--port", str(port)]
)  # fmt: skip
url = f"http://127.0.0.1:{port}"
try:
    for _ in range(600):  # ready in a few seconds
        try:
            urllib.request.urlopen(f"{url}/health", timeout=1)
            break
        except OSError:
            time.sleep(0.2)

    # OpenEnv's own client, unchanged: plain dicts
    with GenericEnvClient(base_url=url).sync() as env:
        result = env.reset(seed=0, case="empa30-001")
        print("user:", result.observation["user_message"])
        result = env.step({"message": "That sounds like a lot. What happened?"})
        print(f"IDR {result.reward:+.2f}  levels {result.observation['info']['levels']}")

    # the typed client: EMPAAction in, EMPAObservation out, EMPAState
    with EMPAEnvClient(base_url=url).sync() as env:
        result = env.reset(seed=0, case="empa30-002")
        while not result.done:
            last = result.observation.user_message
            first = " ".join(last.split()[:6])
            reply = f'It sounds like "{first}..." is weighing on you. What stays with you most?'
            result = env.step(EMPAAction(message=reply))
        state = env.state()
        print(f"{state.step_count} turns, per-turn IDR {[round(r, 2) for r in state.rewards]}")
        print(
            f"EPM-Index {result.observation.epm['EPM_Index']:.1f} ({result.observation.epm['outcome']})"
        )
finally:
    server.terminate()
    server.wait(timeout=30)
