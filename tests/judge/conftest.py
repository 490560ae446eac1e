"""The judge under attack. The integrator switches this one fixture to the default judge."""

from __future__ import annotations

import pytest

from empa_env.offline.guarded import GuardedJudger
from empa_env.offline.judger import OfflineJudger
from empa_env.roles.base import Judger


def make_judge() -> Judger:
    return GuardedJudger(OfflineJudger())


@pytest.fixture(scope="session")
def judge_under_test() -> Judger:
    return make_judge()
