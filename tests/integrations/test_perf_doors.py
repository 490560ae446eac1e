"""The doors' performance script measures what it says: its replay environment gives a door the
recorded episode (so a door's time over it is the door's own work), and the script runs."""

from __future__ import annotations

import importlib.util

import pytest

from benchmarks.perf import perf_doors
from empa_env.integrations.conversation import Conversation
from tests.integrations.reference import play


def test_a_door_over_the_replay_environment_gets_the_recorded_episode():
    (recorded,) = perf_doors.record(1, {})
    reference = play(
        env_id=perf_doors.ENV_ID, case=recorded.case, seed=recorded.seed, judger="offline"
    )
    conversation = Conversation(perf_doors.ReplayEnv([recorded]))
    conversation.open(seed=recorded.seed, case=recorded.case)
    for reply in recorded.replies:
        conversation.reply(reply)
    assert conversation.messages == reference.messages
    assert conversation.rewards == reference.rewards
    assert conversation.score().epm_index == reference.epm_index


@pytest.mark.slow
def test_the_script_prints_every_door(capsys):
    perf_doors.main(["--episodes", "1", "--rounds", "1", "--judger", "lexicon"])
    out = capsys.readouterr().out
    own, end_to_end = out.split("1. ")[1].split("2. ")
    doors = ["Conversation ", "Conversation async", "TRL environment_factory"]
    if importlib.util.find_spec("openenv") is not None:  # the openenv extra's doors
        doors += ["OpenEnv in process", "served, GenericEnvClient", "served, EMPAEnvClient"]
    for door in doors:
        assert door in own and door in end_to_end, out
