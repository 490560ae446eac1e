"""Advantage estimators: hand-computed examples, ragged episodes, appendix B's variance bound."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from baselines.advantages import (
    AdvantageConfig,
    compute_advantages,
    discounted_returns,
    estimators,
    group_level_advantages,
    grpo_advantages,
    mica_advantages,
    mixed_variance,
    pad_rollouts,
    reinforce_pp_idr_batch_advantages,
    reinforce_pp_traj_advantages,
    turn_level_advantages,
    turn_mask,
    unpad,
)

# One case, two rollouts of different lengths: [1, 0] and [0, 2, 1]; gamma = 0.5.
#   returns:  rollout 0: G = [1, 0];  rollout 1: G = [1.25, 2.5, 1]
#   turn 0: {1, 1.25} -> -1, +1;  turn 1: {0, 2.5} -> -1, +1;  turn 2: only rollout 1 alive -> 0
#   group: r = {1, 0, 0, 2, 1}, mu = 0.8, sigma = sqrt(0.56)
GROUPS = [[[1.0, 0.0], [0.0, 2.0, 1.0]]]
SIG = math.sqrt(0.56)


def _example():
    return pad_rollouts(GROUPS)


def test_pad_rollouts_and_unpad_round_trip():
    rewards, lengths = pad_rollouts([[[1.0], [2.0, 3.0]], [[4.0, 5.0, 6.0]]])
    assert rewards.shape == (2, 2, 3)
    assert lengths.tolist() == [[1, 2], [3, 0]]
    back = unpad(rewards, lengths)
    assert [x.tolist() for x in back[0]] == [[1.0], [2.0, 3.0]]
    assert [x.tolist() for x in back[1]] == [[4.0, 5.0, 6.0], []]


def test_discounted_returns_by_hand():
    rewards, lengths = _example()
    g = discounted_returns(rewards, lengths, gamma=0.5)
    np.testing.assert_allclose(g[0, 0], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(g[0, 1], [1.25, 2.5, 1.0])


def test_returns_ignore_rewards_past_the_end():
    rewards, lengths = _example()
    rewards[0, 0, 2] = 99.0  # garbage in the padding must not leak into G_t
    g = discounted_returns(rewards, lengths, gamma=0.5)
    np.testing.assert_allclose(g[0, 0], [1.0, 0.0, 0.0])


def test_turn_level_by_hand():
    rewards, lengths = _example()
    a = turn_level_advantages(rewards, lengths, gamma=0.5)
    np.testing.assert_allclose(a[0, 0], [-1.0, -1.0, 0.0], atol=1e-5)
    np.testing.assert_allclose(a[0, 1], [1.0, 1.0, 0.0], atol=1e-5)


def test_group_level_by_hand():
    rewards, lengths = _example()
    a = group_level_advantages(rewards, lengths)
    np.testing.assert_allclose(a[0, 0], [0.2 / SIG, -0.8 / SIG, 0.0], atol=1e-5)
    np.testing.assert_allclose(a[0, 1], [-0.8 / SIG, 1.2 / SIG, 0.2 / SIG], atol=1e-5)


def test_mica_by_hand():
    rewards, lengths = _example()
    a = mica_advantages(rewards, lengths, alpha=0.5, gamma=0.5)
    expected0 = [0.5 * -1 + 0.5 * 0.2 / SIG, 0.5 * -1 + 0.5 * -0.8 / SIG, 0.0]
    expected1 = [0.5 * 1 + 0.5 * -0.8 / SIG, 0.5 * 1 + 0.5 * 1.2 / SIG, 0.5 * 0.2 / SIG]
    np.testing.assert_allclose(a[0, 0], expected0, atol=1e-5)
    np.testing.assert_allclose(a[0, 1], expected1, atol=1e-5)


def test_mica_alpha_endpoints_are_the_pure_components():
    rewards, lengths = _example()
    np.testing.assert_allclose(
        mica_advantages(rewards, lengths, alpha=1.0, gamma=0.5),
        turn_level_advantages(rewards, lengths, gamma=0.5),
    )
    np.testing.assert_allclose(
        mica_advantages(rewards, lengths, alpha=0.0), group_level_advantages(rewards, lengths)
    )


def test_grpo_by_hand():
    rewards, lengths = _example()  # R_traj = 1 and 3 -> -1, +1 on every turn of each
    a = grpo_advantages(rewards, lengths)
    np.testing.assert_allclose(a[0, 0], [-1.0, -1.0, 0.0], atol=1e-5)
    np.testing.assert_allclose(a[0, 1], [1.0, 1.0, 1.0], atol=1e-5)


def test_reinforce_pp_traj_normalises_over_the_batch_not_the_case():
    # Case 0: R = 1, 3; case 1: R = 5, 7. Batch mean 4, population sd sqrt(5).
    rewards, lengths = pad_rollouts([[[1.0], [3.0]], [[5.0], [7.0]]])
    a = reinforce_pp_traj_advantages(rewards, lengths)
    expected = np.array([[-3.0, -1.0], [1.0, 3.0]]) / math.sqrt(5.0)
    np.testing.assert_allclose(a[..., 0], expected, atol=1e-5)
    # GRPO on the same batch only sees within-case differences.
    np.testing.assert_allclose(
        grpo_advantages(rewards, lengths)[..., 0], [[-1, 1], [-1, 1]], atol=1e-5
    )


def test_reinforce_pp_idr_batch_by_hand():
    rewards, lengths = pad_rollouts([[[1.0, 3.0]], [[5.0]]])  # turns 1, 3, 5: mu 3, sd sqrt(8/3)
    a = reinforce_pp_idr_batch_advantages(rewards, lengths)
    sd = math.sqrt(8.0 / 3.0)
    np.testing.assert_allclose(a[0, 0], [-2.0 / sd, 0.0], atol=1e-5)
    np.testing.assert_allclose(a[1, 0], [2.0 / sd, 0.0], atol=1e-5)


@pytest.mark.parametrize("name", estimators.names())
def test_degenerate_groups_are_finite_and_zero(name):
    # Equal rewards and lengths everywhere, and a case with a single rollout: no spread -> 0.
    rewards, lengths = pad_rollouts([[[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5]]])
    a = compute_advantages(name, rewards, lengths)
    assert np.all(np.isfinite(a))
    np.testing.assert_allclose(a, 0.0, atol=1e-9)


def test_a_lone_survivor_gets_no_turn_level_advantage():
    # Only rollout 1 is alive at turns 1-2: N_t = 1, so A^t is 0 there however large G_t is.
    rewards, lengths = pad_rollouts([[[1.0], [0.0, 5.0, -3.0]]])
    a = turn_level_advantages(rewards, lengths)
    assert np.all(a[0, 1, 1:] == 0.0) and abs(a[0, 1, 0]) > 0.9


@pytest.mark.parametrize("name", estimators.names())
def test_padding_is_zero_and_extra_padding_changes_nothing(name):
    rng = np.random.default_rng(1)
    rewards = rng.normal(size=(3, 4, 6))
    lengths = rng.integers(0, 7, size=(3, 4))
    a = compute_advantages(name, rewards, lengths)
    assert np.all(a[~turn_mask(lengths, 6)] == 0.0)
    wider = np.concatenate([rewards, rng.normal(size=(3, 4, 5))], axis=2)
    np.testing.assert_allclose(compute_advantages(name, wider, lengths)[..., :6], a, atol=1e-12)


@pytest.mark.parametrize("name", estimators.names())
def test_an_absent_rollout_is_the_same_as_no_rollout(name):
    rng = np.random.default_rng(2)
    groups = [
        [list(rng.normal(size=n)) for n in (3, 5)],
        [list(rng.normal(size=n)) for n in (4, 2, 6)],
    ]
    rewards, lengths = pad_rollouts(groups)  # case 0 is padded with an absent third rollout
    a = compute_advantages(name, rewards, lengths)
    assert lengths[0, 2] == 0 and np.all(a[0, 2] == 0.0)
    if name not in {"reinforce_pp_traj", "reinforce_pp_idr_batch"}:  # per-case estimators
        alone = compute_advantages(name, *pad_rollouts(groups[:1]))
        np.testing.assert_allclose(a[0, :2, :5], alone[0], atol=1e-12)


def test_config_and_errors():
    rewards, lengths = _example()
    cfg = AdvantageConfig("mica", alpha=0.5, gamma=0.5)
    np.testing.assert_allclose(cfg(rewards, lengths), mica_advantages(rewards, lengths, gamma=0.5))
    assert cfg.name == "mica"
    custom = AdvantageConfig(lambda r, lengths, **_: np.zeros_like(r))
    assert np.all(custom(rewards, lengths) == 0.0)
    with pytest.raises(ValueError):
        AdvantageConfig("nope")
    with pytest.raises(ValueError):
        mica_advantages(rewards, lengths, alpha=1.5)
    with pytest.raises(ValueError):
        discounted_returns(rewards, lengths, gamma=0.0)
    with pytest.raises(ValueError):
        compute_advantages("mica", rewards[0], lengths)
    with pytest.raises(ValueError):
        compute_advantages("mica", rewards, lengths + 5)


def test_torch_wrapper_matches_numpy():
    torch = pytest.importorskip("torch")
    from baselines.advantages import advantages_torch

    rewards, lengths = _example()
    out = advantages_torch(
        "mica", torch.tensor(rewards, dtype=torch.float32), torch.tensor(lengths)
    )
    assert out.dtype == torch.float32
    np.testing.assert_allclose(out.numpy(), mica_advantages(rewards, lengths), atol=1e-6)


# --- property tests -------------------------------------------------------------------------
_ragged = st.lists(
    st.lists(
        st.lists(st.floats(-10, 10, allow_nan=False), min_size=1, max_size=8),
        min_size=1,
        max_size=4,
    ),
    min_size=1,
    max_size=3,
)


@settings(max_examples=60, deadline=None)
@given(groups=_ragged, gamma=st.floats(0.05, 1.0))
def test_returns_match_a_naive_loop(groups, gamma):
    rewards, lengths = pad_rollouts(groups)
    g = discounted_returns(rewards, lengths, gamma=gamma)
    for b, group in enumerate(groups):
        for k, ep in enumerate(group):
            for t in range(len(ep)):
                naive = sum(gamma ** (i - t) * ep[i] for i in range(t, len(ep)))
                assert g[b, k, t] == pytest.approx(naive, rel=1e-9, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(groups=_ragged, alpha=st.floats(0.0, 1.0))
def test_mica_pooled_variance_per_case_is_at_most_one(groups, alpha):
    """Appendix B on the estimator itself: both components are standardised (or 0), so within a
    case the pooled second moment of A = alpha A^t + (1 - alpha) A^g is at most 1."""
    rewards, lengths = pad_rollouts(groups)
    a = mica_advantages(rewards, lengths, alpha=alpha)
    mask = turn_mask(lengths, rewards.shape[2])
    for b in range(a.shape[0]):
        vals = a[b][mask[b]]
        assert np.mean(vals**2) <= 1.0 + 1e-6


@settings(max_examples=100, deadline=None)
@given(
    xy=hnp.arrays(
        np.float64, st.tuples(st.integers(3, 40), st.just(2)), elements=st.floats(-100, 100)
    ),
    alpha=st.floats(0.0, 1.0),
)
def test_appendix_b_bound_and_minimiser(xy, alpha):
    x, y = xy[:, 0], xy[:, 1]
    if x.std() < 1e-3 or y.std() < 1e-3:
        return  # standardising needs spread
    x = (x - x.mean()) / x.std()
    y = (y - y.mean()) / y.std()
    cov = float(np.mean(x * y))

    def var(a: float) -> float:
        return float(np.var(a * x + (1.0 - a) * y))

    assert var(alpha) <= 1.0 + 1e-9
    assert var(alpha) == pytest.approx(mixed_variance(alpha, cov), abs=1e-9)
    assert var(0.5) <= var(alpha) + 1e-9  # alpha* = 1/2 minimises Var(A)


def test_mixed_variance_minimiser_is_one_half():
    grid = np.linspace(0.0, 1.0, 101)
    for cov in (-1.0, -0.3, 0.0, 0.7, 0.99):
        v = mixed_variance(grid, cov)
        assert np.all(v <= 1.0 + 1e-12)
        assert grid[int(np.argmin(v))] == pytest.approx(0.5)
    assert np.allclose(mixed_variance(grid, 1.0), 1.0)  # c = 1: constant in alpha
