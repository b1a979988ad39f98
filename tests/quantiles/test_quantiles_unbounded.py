"""Tests for dpcore.quantiles' unbounded quantile (specs/winsorized.md §2): the grid, the walk
against a sequential loop, and its exact stopping distribution.

Statistical tests use fixed seeds. Each goodness-of-fit test passes at p > 1e-4 (a false alarm
rate of 1e-4 per test, so a correct implementation essentially never fails) and is shown to have
power: the same statistic computed against the same reference with one noise scale changed by
30% must give p < 1e-6. Sample sizes were chosen from the theory (expected chi-square
non-centrality / KS distance under the 1.3x alternative), not by tuning seeds.
"""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pytest
from scipy import integrate

from dpcore.quantiles import grid_size, premature_stop_risk, unbounded_quantile
from dpcore.quantiles import unbounded as QU
from tests.quantiles._quantiles import P_OK, P_REJECT, _chisquare_p

# ----------------------------------------------------------------------------------------------
# unbounded quantile (specs/winsorized.md §2)
# ----------------------------------------------------------------------------------------------


def test_grid_size_values():
    assert grid_size((-50, 50), 1.001) == 4618  # specs/winsorized.md §2.6
    assert grid_size((0, 100), 2.0) == 7  # 2**7 - 1 = 127 >= 100 > 63
    k = grid_size((np.array([0.0, -1.0]), np.array([1.0, 1e6])), 1.01)
    for j, (lo, hi) in enumerate([(0.0, 1.0), (-1.0, 1e6)]):
        i = np.arange(1, 5000)
        first = int(i[lo + 1.01**i - 1 >= hi][0])
        assert k[j] == first


def test_grid_counts_are_exact_on_grid_points_and_outside():
    beta, lo = 1.01, np.array([-2.0, 5.0])
    kmax = 300
    log_beta = math.log(beta)
    g = lo[None, :] + QU._grid_minus_one(np.arange(1, kmax + 1), log_beta)[:, None]
    rng = np.random.default_rng(11)
    x = np.concatenate([g[rng.integers(0, kmax, 40)], rng.uniform(-10, 40, size=(60, 2))])
    x[0] = lo - 1  # below the start: below every grid point
    x[1] = lo + 1e6  # above every grid point
    counts = QU._grid_counts(x, lo, kmax, log_beta)
    brute = (x[None, :, :] < g[:, None, :]).sum(axis=1).T
    np.testing.assert_array_equal(counts, brute)


def _reference_walk(col, lo, hi, q, beta, E0, E):
    """Sequential UQ_UP with hard stop (specs/winsorized.md §2.1), given the noise draws."""
    t = q * col.size + E0
    i = 0
    while True:
        i += 1
        g = lo + beta**i - 1
        if g >= hi:
            return hi, i, True
        if np.sum(col < g) + E[i - 1] > t:
            return g, i, False


@pytest.mark.parametrize("pure", [True, False])
def test_vectorised_walk_equals_sequential_loop_with_same_noise(pure, monkeypatch):
    # the per-query walk (noise on every grid point); the walk by runs has the same law
    # (tests/quantiles/test_walk_runs.py)
    monkeypatch.setattr(QU, "_PER_QUERY", True)
    rng = np.random.default_rng(12)
    x = rng.normal(2.0, 1.0, size=(25, 3))
    lo, hi = np.array([-5.0, 0.0, 1.0]), np.array([8.0, 3.0, 2.5])
    bT, bQ, beta, q, seed = 0.9, 0.6, 1.01, 0.8, 77
    kw = (
        {"epsilon_threshold": bT, "epsilon_query": bQ}
        if pure
        else {"rho_threshold": bT, "rho_query": bQ}
    )
    res = unbounded_quantile(x, q, (lo, hi), beta=beta, rng=seed, **kw)
    # same draws in the same order: threshold noise for all columns, then (d, Kmax) query noise
    gen = np.random.default_rng(seed)
    kmax = int(np.max(grid_size((lo, hi), beta)))
    if pure:
        E0 = gen.standard_exponential(3) / (bT / 3)
        E = gen.standard_exponential((3, kmax)) / (bQ / 3)
    else:
        E0 = gen.standard_normal(3) / math.sqrt(bT / 3)
        E = gen.standard_normal((3, kmax)) / math.sqrt(bQ / 3)
    for j in range(3):
        v, i, hit = _reference_walk(x[:, j], lo[j], hi[j], q, beta, E0[j], E[j])
        assert res.steps[j] == i and res.hit_bound[j] == hit
        assert res.value[j] == pytest.approx(v, rel=1e-13)  # g_i = lo + beta**i - 1 up to rounding


@pytest.mark.parametrize("pure", [True, False])
def test_lower_quantile_is_the_mirrored_walk(pure):
    # specs/winsorized.md §2.1: PQ(x, q < 1/2) = max(-UQ_UP(-x, -b, 1 - q, hi=-a), a).
    x = np.random.default_rng(13).normal(size=(40, 3))
    lo, hi = np.array([-4.0, -3.0, -2.0]), np.array([4.0, 5.0, 6.0])
    kw = (
        {"epsilon_threshold": 0.5, "epsilon_query": 0.5}
        if pure
        else {"rho_threshold": 0.5, "rho_query": 0.5}
    )
    low = unbounded_quantile(x, 0.2, (lo, hi), rng=4, **kw)
    up = unbounded_quantile(-x, 0.8, (-hi, -lo), rng=4, **kw)
    np.testing.assert_array_equal(low.value, np.maximum(-up.value, lo))
    np.testing.assert_array_equal(low.steps, up.steps)
    np.testing.assert_array_equal(low.hit_bound, up.hit_bound)


def test_unbounded_large_budget_finds_true_quantile_within_grid_resolution():
    # n = 101 and eps = 1e9: noise ~1e-9 and the target ranks 50.5 / 70.7 are not integers, so
    # the walk stops at the first grid point past the order statistic.
    beta = 1.001
    x = np.random.default_rng(14).normal(size=(101, 2))
    s = np.sort(x, axis=0)
    kw = {"epsilon_threshold": 2e9, "epsilon_query": 2e9, "beta": beta, "rng": 5}
    up = unbounded_quantile(x, 0.5, (-10, 10), **kw)
    prev = -10 + beta ** (up.steps - 1) - 1
    assert np.all(up.value > s[50]) and np.all(prev <= s[50] + 1e-9)
    assert np.all(up.value - s[50] <= (beta - 1) * (up.value + 10 + 1))
    # q = 0.3 walks down from 10 (mirrored, target (1 - q) n = 70.7 points above): the first
    # downward grid point below x_(31) (1-based).
    low = unbounded_quantile(x, 0.3, (-10, 10), **kw)
    prev = 10 - beta ** (low.steps - 1) + 1
    assert np.all(low.value < s[30]) and np.all(prev >= s[30] - 1e-9)
    assert not np.any(up.hit_bound) and not np.any(low.hit_bound)


def test_hard_stop_returns_the_far_bound():
    # all data above hi: no count ever exceeds the target before the grid reaches hi
    x = np.full((30, 2), 100.0)
    r = unbounded_quantile(x, 0.9, (0, 10), epsilon_threshold=1e6, epsilon_query=1e6, beta=1.1)
    np.testing.assert_array_equal(r.value, [10.0, 10.0])
    assert np.all(r.hit_bound) and np.all(r.steps == grid_size((0, 10), 1.1))
    r = unbounded_quantile(-x, 0.1, (-10, 0), epsilon_threshold=1e6, epsilon_query=1e6, beta=1.1)
    np.testing.assert_array_equal(r.value, [-10.0, -10.0])
    assert np.all(r.hit_bound)


# exact stopping distribution of the walk on a tiny data set: grid g_i = 2**i - 1 on [0, 100]
# (beta = 2, K = 7), data (0.5, 2, 5, 20), q = 1/2, so counts c_1..c_6 = 1, 2, 3, 3, 4, 4 and
# target t = 2 + E_0. P(stop at i) = E[prod_{k<i} F(t - c_k) (1 - F(t - c_i))], F the query-noise
# CDF; i = 7 is the hard stop.
UQ_DATA = np.array([0.5, 2.0, 5.0, 20.0])
UQ_COUNTS = np.array([1, 2, 3, 3, 4, 4])


def _stop_probabilities(F, f0, a, b) -> np.ndarray:
    qn = 0.5 * UQ_DATA.size
    K = UQ_COUNTS.size + 1
    kinks = sorted({float(c - qn) for c in UQ_COUNTS if a < c - qn < b} | {a, b})
    out = []
    for i in range(K):

        def dens(e, i=i):
            t = qn + e
            p = f0(e)
            for k in range(i):
                p *= F(t - UQ_COUNTS[k])
            if i < K - 1:
                p *= 1.0 - F(t - UQ_COUNTS[i])
            return p

        out.append(sum(integrate.quad(dens, u, w, limit=200)[0] for u, w in pairwise(kinks)))
    return np.array(out)


def _pure_probs(eps_t: float, eps_q: float) -> np.ndarray:
    def F(s):
        return -math.expm1(-eps_q * s) if s > 0 else 0.0

    return _stop_probabilities(F, lambda e: eps_t * math.exp(-eps_t * e), 0.0, 60.0 / eps_t)


def _zcdp_probs(rho_t: float, rho_q: float) -> np.ndarray:
    sd0, sq = 1 / math.sqrt(rho_t), math.sqrt(rho_q)

    def F(s):  # standard normal CDF at s * sqrt(rho_Q) (scalar math is fast inside quad)
        return 0.5 * math.erfc(-s * sq / math.sqrt(2))

    def f0(e):
        return math.exp(-0.5 * (e / sd0) ** 2) / (sd0 * math.sqrt(2 * math.pi))

    return _stop_probabilities(F, f0, -12 * sd0, 12 * sd0)


def test_unbounded_pure_stopping_distribution_is_exact():
    # 20000 columns with totals 20000 => eps_T = eps_Q = 1 per column (checks the budget split).
    # Chi-square passes at 1e-4; with eps_Q or eps_T 30% off, the non-centrality is in the
    # hundreds (p ~ 1e-200).
    d = 20000
    X = np.repeat(UQ_DATA[:, None], d, axis=1)
    r = unbounded_quantile(
        X, 0.5, (0, 100), epsilon_threshold=1.0 * d, epsilon_query=1.0 * d, beta=2.0, rng=5
    )
    counts = np.bincount(r.steps - 1, minlength=7)
    assert counts.size == 7
    p = _pure_probs(1.0, 1.0)
    assert p.sum() == pytest.approx(1.0, abs=1e-9)
    assert _chisquare_p(counts, p) > P_OK
    for wrong in (_pure_probs(1.0, 1.3), _pure_probs(1.0, 1 / 1.3), _pure_probs(1.3, 1.0)):
        assert _chisquare_p(counts, wrong) < P_REJECT
    # one-sided noise: the walk never stops before the first point where c_i + E_i can exceed t
    np.testing.assert_array_equal(r.value[r.steps == 7], 100.0)
    assert r.hit_bound.sum() == counts[6]


def test_unbounded_zcdp_stopping_distribution_is_exact():
    # E_0 ~ N(0, 1/rho_T), E_i ~ N(0, 1/rho_Q) (variances), rho = 1 per column. A 30% error in
    # either noise standard deviation is rejected.
    d = 20000
    X = np.repeat(UQ_DATA[:, None], d, axis=1)
    r = unbounded_quantile(
        X, 0.5, (0, 100), rho_threshold=1.0 * d, rho_query=1.0 * d, beta=2.0, rng=6
    )
    counts = np.bincount(r.steps - 1, minlength=7)
    p = _zcdp_probs(1.0, 1.0)
    assert p.sum() == pytest.approx(1.0, abs=1e-9)
    assert _chisquare_p(counts, p) > P_OK
    for wrong in (_zcdp_probs(1.0, 1.3**-2), _zcdp_probs(1.0, 1.3**2), _zcdp_probs(1.3**-2, 1.0)):
        assert _chisquare_p(counts, wrong) < P_REJECT


def test_premature_stop_cell_of_the_spec_table():
    # specs/winsorized.md §2.6, cell n = 100, eps = 1: PMWM's quantiles q = 1 - tau = 0.975 and
    # tau = 0.025 (tau = min(max(10/n, 0), 0.025)) with eps_T = eps_Q = eps/8, beta = 1.001,
    # bounds +-50, N(5, 1) data; "lands on the wrong side of the median in about 4%". The walk
    # below the data passes ~3970 grid points with stop chance e^{-eps_Q 97.5} ~ 5e-6 each,
    # halved on average by the threshold noise: ~1% per quantile from premature stops plus
    # stops inside the lower half of the data. 1000 runs (as 1000 columns, totals x 1000)
    # give a binomial sd of ~0.5%; assert the combined rate is between 1% and 10%.
    d, n, eps = 1000, 100, 1.0
    X = np.random.default_rng(15).normal(5.0, 1.0, size=(n, d))
    kw = {"epsilon_threshold": eps / 8 * d, "epsilon_query": eps / 8 * d, "beta": 1.001}
    up = unbounded_quantile(X, 0.975, (-50, 50), rng=16, **kw).value
    low = unbounded_quantile(X, 0.025, (-50, 50), rng=17, **kw).value
    wrong = np.mean((up < 5.0) | (low > 5.0))
    assert 0.01 <= wrong <= 0.10
    # The *median* itself (target n/2 = 50) at the same budget almost always stops early: the
    # risk formula predicts it, and it happens.
    assert premature_stop_risk(n, 0.5, eps / 8, 3970) > 0.9
    assert premature_stop_risk(n, 0.975, eps / 8, 3970) < 0.05
    med = unbounded_quantile(X, 0.5, (-50, 50), rng=18, **kw).value
    assert np.mean(med < 5.0) > 0.5


def test_premature_stop_risk_formula():
    assert premature_stop_risk(100, 0.975, 0.125, 4000) == pytest.approx(
        1 - math.exp(-4000 * math.exp(-0.125 * 97.5))
    )
    assert premature_stop_risk(100, 0.025, 0.125, 4000) == premature_stop_risk(
        100, 0.975, 0.125, 4000
    )
    r = premature_stop_risk(100, 0.9, np.array([0.05, 0.1, 0.5]), 4618)
    assert r.shape == (3,) and np.all(np.diff(r) < 0)
