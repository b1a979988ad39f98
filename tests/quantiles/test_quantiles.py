"""Tests for dpcore.quantiles (specs/plan.md §3, specs/winsorized.md §2).

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
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from dpcore.quantiles import (
    UnboundedQuantile,
    binary_search_quantile,
    binary_search_trace,
    exponential_quantile,
    exponential_quantile_probabilities,
    grid_size,
    premature_stop_risk,
    rank_error_bound,
    unbounded_quantile,
)
from dpcore.quantiles import binary_search as QB
from dpcore.quantiles import coordinate as QC
from dpcore.quantiles import exponential as QE
from dpcore.quantiles import unbounded as QU

P_OK = 1e-4  # false-alarm rate of each goodness-of-fit test
P_REJECT = 1e-6  # a 30% mis-scaled reference must be rejected at least this strongly


def _call(kind: str, x, q, bounds, budget=1.0, rng=0):
    """Call one of the three quantiles with a total budget ``budget``."""
    if kind == "binary":
        return binary_search_quantile(x, q, bounds, rho=budget, steps=12, rng=rng)
    if kind == "binary_top":
        return binary_search_quantile(x, q, bounds, rho=budget, steps=12, rng=rng, return_top=True)
    if kind == "em_eps":
        return exponential_quantile(x, q, bounds, epsilon=budget, rng=rng)
    if kind == "em_rho":
        return exponential_quantile(x, q, bounds, rho=budget, rng=rng)
    if kind == "uq_eps":
        return unbounded_quantile(
            x, q, bounds, epsilon_threshold=budget, epsilon_query=budget, rng=rng
        ).value
    if kind == "uq_rho":
        return unbounded_quantile(
            x, q, bounds, rho_threshold=budget, rho_query=budget, rng=rng
        ).value
    raise AssertionError(kind)


KINDS = ["binary", "binary_top", "em_eps", "em_rho", "uq_eps", "uq_rho"]


def _chisquare_p(counts: np.ndarray, probs: np.ndarray, min_expected: float = 5.0) -> float:
    """Pearson chi-square p-value; cells with expected count < 5 are pooled into one cell."""
    expected = probs * counts.sum()
    small = expected < min_expected
    obs = np.append(counts[~small], counts[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    keep = exp > 0
    assert obs[~keep].sum() == 0, "an outcome of probability 0 occurred"
    return float(stats.chisquare(obs[keep], exp[keep]).pvalue)


# ----------------------------------------------------------------------------------------------
# exact facts shared by the three routines
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("budget", [1e-3, 1.0, 1e6])
@pytest.mark.parametrize("q", [0.05, 0.5, 0.9])
def test_outputs_inside_bounds_with_outliers_and_per_column_bounds(kind, budget, q):
    rng = np.random.default_rng(7)
    x = rng.standard_cauchy(size=(60, 4)) * 20  # many points outside the bounds
    lo = np.array([-5.0, 0.0, 10.0, -100.0])
    hi = np.array([5.0, 1.0, 12.0, 100.0])
    v = _call(kind, x, q, (lo, hi), budget=budget, rng=3)
    assert v.shape == (4,)
    assert np.all(v >= lo) and np.all(v <= hi)


@pytest.mark.parametrize("kind", KINDS)
def test_shapes_1d_float_2d_array(kind):
    x = np.random.default_rng(1).normal(size=(30, 3))
    one = _call(kind, x[:, 0], 0.5, (-4, 4))
    assert isinstance(one, float)
    many = _call(kind, x, 0.5, (-4, 4))
    assert isinstance(many, np.ndarray) and many.shape == (3,)
    single = _call(kind, x[:, :1], 0.5, (-4, 4))
    assert isinstance(single, np.ndarray) and single.shape == (1,)


def test_unbounded_result_types():
    x = np.random.default_rng(1).normal(size=(30, 3))
    r1 = unbounded_quantile(x[:, 0], 0.9, (-4, 4), epsilon_threshold=1, epsilon_query=1, rng=0)
    assert isinstance(r1, UnboundedQuantile)
    assert isinstance(r1.value, float) and isinstance(r1.steps, int)
    assert isinstance(r1.hit_bound, bool)
    r2 = unbounded_quantile(x, 0.9, (-4, 4), epsilon_threshold=1, epsilon_query=1, rng=0)
    assert r2.value.shape == r2.steps.shape == r2.hit_bound.shape == (3,)
    assert r2.hit_bound.dtype == bool


@pytest.mark.parametrize("kind", KINDS)
def test_reproducible_by_seed(kind):
    x = np.random.default_rng(2).normal(size=(40, 5))
    a = _call(kind, x, 0.7, (-3, 3), rng=123)
    b = _call(kind, x, 0.7, (-3, 3), rng=123)
    c = _call(kind, x, 0.7, (-3, 3), rng=np.random.default_rng(123))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    d = _call(kind, x, 0.7, (-3, 3), rng=124)
    assert not np.array_equal(a, d)


def test_no_global_numpy_state_used():
    x = np.random.default_rng(2).normal(size=(40, 2))
    # The legacy global generator is what must stay untouched.
    np.random.seed(0)  # noqa: NPY002
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    for kind in KINDS:
        _call(kind, x, 0.5, (-3, 3), rng=5)
    np.testing.assert_array_equal(np.random.get_state()[1], before)  # noqa: NPY002


# ----------------------------------------------------------------------------------------------
# binary search (specs/plan.md §3a)
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("steps", [1, 7, 30])
def test_binary_search_makes_exactly_steps_noisy_counts(steps):
    x = np.random.default_rng(3).normal(size=(50, 4))
    gen = np.random.default_rng(99)
    ref = np.random.default_rng(99)
    # Huge budget: the search would be "done" early, but every pre-declared step still happens.
    tr = binary_search_trace(x, 0.5, (-3, 3), rho=1e9, steps=steps, rng=gen)
    ref.standard_normal((steps, 4))  # exactly steps x d Gaussian draws, nothing else
    assert gen.bit_generator.state == ref.bit_generator.state
    assert tr.midpoints.shape == tr.counts.shape == tr.noisy_counts.shape == (steps, 4)
    # each step halves the interval: the final width is exactly (hi - lo) 2**-T
    np.testing.assert_allclose(np.asarray(tr.upper) - np.asarray(tr.lower), 6.0 * 2.0**-steps)


def test_binary_search_trace_counts_are_exact_and_value_consistent():
    x = np.random.default_rng(4).normal(size=(40, 3))
    tr = binary_search_trace(x, 0.3, (-3, 3), rho=0.5, steps=9, rng=1)
    np.testing.assert_array_equal(
        tr.counts, (x[None, :, :] <= tr.midpoints[:, None, :]).sum(axis=1)
    )
    np.testing.assert_array_equal(tr.value, 0.5 * (tr.lower + tr.upper))
    top = binary_search_quantile(x, 0.3, (-3, 3), rho=0.5, steps=9, rng=1, return_top=True)
    np.testing.assert_array_equal(top, tr.upper)


def test_binary_search_sorted_and_comparison_counting_agree():
    x = np.random.default_rng(5).normal(size=(64, 6))
    x[:10] = np.round(x[:10], 1)  # ties
    lo, hi = np.full(6, -3.0), np.full(6, 3.0)
    outs = [
        QB._binary_search(x, 0.4, lo, hi, 1.0, 15, np.random.default_rng(8), sorted_counts=s)
        for s in (False, True)
    ]
    for a, b in zip(outs[0][:5], outs[1][:5], strict=True):
        np.testing.assert_array_equal(a, b)


def test_binary_search_noise_std_and_per_column_split():
    x = np.random.default_rng(6).normal(size=(30, 8))
    tr2 = binary_search_trace(x, 0.5, (-3, 3), rho=2.0, steps=10, rng=0)
    tr1 = binary_search_trace(x[:, 0], 0.5, (-3, 3), rho=2.0 / 8, steps=10, rng=0)
    assert tr2.noise_std == pytest.approx(math.sqrt(10 * 8 / (2 * 2.0)), rel=1e-15)
    assert tr1.noise_std == pytest.approx(tr2.noise_std, rel=1e-15)


def test_binary_search_large_budget_finds_true_quantile():
    # n = 101, q = 0.5: target rank 50.5 is not an integer, so with noise sd ~5e-6 the exact
    # comparison "count <= 50.5" decides every step; the order statistic x_(51) (1-based)
    # then lies in the final interval (l, u] of width (hi - lo) 2**-T.
    rng = np.random.default_rng(7)
    x = rng.normal(size=(101, 3))
    T, width = 40, 20.0 * 2.0**-40
    truth = np.sort(x, axis=0)[50]
    tr = binary_search_trace(x, 0.5, (-10, 10), rho=1e12, steps=T, rng=1)
    assert np.all(tr.lower < truth) and np.all(truth <= tr.upper)
    np.testing.assert_allclose(tr.value, truth, atol=width)
    v = binary_search_quantile(x[:, 1], 0.5, (-10, 10), rho=1e12 / 3, steps=T, rng=1)
    assert abs(v - truth[1]) <= width


def test_binary_search_count_noise_is_gaussian_with_the_stated_scale():
    # T x d = 10 x 400 = 4000 noise values. Under N(0, s) the KS test passes at p > 1e-4; against
    # N(0, 1.3 s) the population KS distance is ~0.06 (max |Phi(z) - Phi(z/1.3)|), far above the
    # 1e-6 critical value sqrt(ln(2e6) / (2 * 4000)) ~ 0.043, so the mis-scaled reference is
    # rejected.
    T, d, rho = 10, 400, 2.0
    x = np.random.default_rng(8).normal(size=(50, d))
    tr = binary_search_trace(x, 0.5, (-5, 5), rho=rho, steps=T, rng=4)
    noise = (tr.noisy_counts - tr.counts).ravel()
    s = math.sqrt(T * d / (2 * rho))  # per column rho / d, per step rho / (d T)
    assert stats.kstest(noise, "norm", args=(0, s)).pvalue > P_OK
    assert stats.kstest(noise, "norm", args=(0, 1.3 * s)).pvalue < P_REJECT
    assert stats.kstest(noise, "norm", args=(0, s / 1.3)).pvalue < P_REJECT


def test_rank_error_bound_formula():
    assert rank_error_bound(20, 0.5, 0.1) == pytest.approx(math.sqrt(20 * math.log(200) / 1.0))
    assert rank_error_bound(10, 2.0, 0.05) < rank_error_bound(10, 1.0, 0.05)


# ----------------------------------------------------------------------------------------------
# exponential mechanism (specs/plan.md §3b)
# ----------------------------------------------------------------------------------------------

EM_DATA = np.array([0.3, 1.1, 1.2, 2.5, 3.0, 4.4, 5.0, 6.1, 7.7, 9.0])


def _em_interval_counts(v: np.ndarray, x: np.ndarray, bounds) -> tuple[np.ndarray, np.ndarray]:
    z = np.concatenate(([bounds[0]], np.sort(x), [bounds[1]]))
    idx = np.searchsorted(z, v, side="right") - 1
    idx = np.minimum(idx, x.size)  # v == upper bound belongs to the last interval
    pos = (v - z[idx]) / np.diff(z)[idx]
    return np.bincount(idx, minlength=x.size + 1), pos


def test_em_interval_frequencies_match_exact_probabilities_epsilon():
    # 4000 columns of the same data, epsilon total 4000 => eps_col = 1 each: 4000 independent
    # draws. Chi-square against p_i ∝ L_i exp(-|i - 5| / 2) passes at p > 1e-4; with eps 30%
    # off, the expected non-centrality N * sum (p - p')^2 / p' is > 100, so p < 1e-6.
    d = 4000
    X = np.repeat(EM_DATA[:, None], d, axis=1)
    v = exponential_quantile(X, 0.5, (0, 10), epsilon=1.0 * d, rng=11)
    counts, pos = _em_interval_counts(v, EM_DATA, (0, 10))
    p = exponential_quantile_probabilities(EM_DATA, 0.5, (0, 10), 1.0)
    assert _chisquare_p(counts, p) > P_OK
    for wrong in (1.3, 1 / 1.3):
        p_wrong = exponential_quantile_probabilities(EM_DATA, 0.5, (0, 10), wrong)
        assert _chisquare_p(counts, p_wrong) < P_REJECT
    # uniform inside the chosen interval
    assert stats.kstest(pos, "uniform").pvalue > P_OK


def test_em_rho_gives_eps_sqrt_8rho_per_column():
    # rho total d / 8 => eps_col = sqrt(8 rho / d) = 1. The conservative eps = sqrt(2 rho / d)
    # (0.5, a 50% change) and a 30% change must both be rejected.
    d = 4000
    X = np.repeat(EM_DATA[:, None], d, axis=1)
    v = exponential_quantile(X, 0.3, (0, 10), rho=d / 8, rng=12)
    counts, _ = _em_interval_counts(v, EM_DATA, (0, 10))
    p = exponential_quantile_probabilities(EM_DATA, 0.3, (0, 10), 1.0)
    assert _chisquare_p(counts, p) > P_OK
    for wrong in (0.5, 1.3):
        p_wrong = exponential_quantile_probabilities(EM_DATA, 0.3, (0, 10), wrong)
        assert _chisquare_p(counts, p_wrong) < P_REJECT


def test_em_rho_and_epsilon_paths_and_sensitivity_agree_exactly():
    x = np.random.default_rng(9).normal(size=(50, 4))
    rho = 0.3
    a = exponential_quantile(x, 0.5, (-3, 3), rho=rho, rng=5)
    b = exponential_quantile(x, 0.5, (-3, 3), epsilon=4 * math.sqrt(8 * rho / 4), rng=5)
    np.testing.assert_allclose(a, b, rtol=0, atol=0)
    # Delta u = 0.5 (Kaplan's add/remove constant at the median) is the same as doubling eps.
    c = exponential_quantile(x, 0.5, (-3, 3), epsilon=1.0, rng=5, utility_sensitivity=0.5)
    e = exponential_quantile(x, 0.5, (-3, 3), epsilon=2.0, rng=5)
    np.testing.assert_array_equal(c, e)


def test_em_probabilities_formula():
    p = exponential_quantile_probabilities(EM_DATA, 0.5, (0, 10), 1.0)
    z = np.concatenate(([0.0], EM_DATA, [10.0]))
    w = np.diff(z) * np.exp(-np.abs(np.arange(11) - 5.0) / 2)
    np.testing.assert_allclose(p, w / w.sum(), rtol=1e-12)


def test_em_large_budget_lands_between_the_right_order_statistics():
    # n = 100, q = 0.5: the best interval is I_50 = [x_(50), x_(51)]; its neighbours are
    # exp(-eps/2) = exp(-2.5e8) times less likely.
    rng = np.random.default_rng(10)
    x = rng.normal(size=(100, 3))
    s = np.sort(x, axis=0)
    v = exponential_quantile(x, 0.5, (-10, 10), epsilon=3e9, rng=2)
    assert np.all(s[49] <= v) and np.all(v <= s[50])
    v = exponential_quantile(x[:, 0], 0.25, (-10, 10), rho=1e16, rng=2)
    assert s[24, 0] <= v <= s[25, 0]


def test_em_zero_length_intervals_are_never_chosen():
    # x = (1, 1, 1, 1), q = 0.5: the best interval [1, 1] has length 0 and weight exactly 0
    # (a 1e-30 floor, as in Kaplan's code, would pick it at this eps). The two candidates left
    # are [0, 1] and [1, 3], both with utility -2, chosen with probability 1/3 and 2/3.
    d = 3000
    X = np.ones((4, d))
    v = exponential_quantile(X, 0.5, (0, 3), epsilon=100.0 * d, rng=3)
    assert not np.any(v == 1.0)
    k = int(np.sum(v < 1.0))
    assert stats.binomtest(k, d, 1 / 3).pvalue > P_OK
    p = exponential_quantile_probabilities(np.ones(4), 0.5, (0, 3), 100.0)
    np.testing.assert_allclose(p, [1 / 3, 0, 0, 0, 2 / 3], atol=1e-15)


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


# ----------------------------------------------------------------------------------------------
# bad input (Hypothesis)
# ----------------------------------------------------------------------------------------------

CALLS = {
    "binary": lambda x, q, b, budget: binary_search_quantile(x, q, b, rho=budget, steps=5, rng=0),
    "em": lambda x, q, b, budget: exponential_quantile(x, q, b, epsilon=budget, rng=0),
    "em_rho": lambda x, q, b, budget: exponential_quantile(x, q, b, rho=budget, rng=0),
    "uq": lambda x, q, b, budget: unbounded_quantile(
        x, q, b, epsilon_threshold=budget, epsilon_query=1.0, beta=1.1, rng=0
    ),
    "uq_query": lambda x, q, b, budget: unbounded_quantile(
        x, q, b, rho_threshold=1.0, rho_query=budget, beta=1.1, rng=0
    ),
}
BUDGET_NAME = {
    "binary": "rho",
    "em": "epsilon",
    "em_rho": "rho",
    "uq": "epsilon_threshold",
    "uq_query": "rho_query",
}
FAST = settings(max_examples=25, deadline=None)
kinds = st.sampled_from(sorted(CALLS))
good_data = st.lists(st.floats(-100, 100, allow_nan=False), min_size=2, max_size=12).map(np.array)


@FAST
@given(
    kind=kinds,
    data=good_data,
    idx=st.integers(0, 11),
    bad=st.sampled_from([np.nan, np.inf, -np.inf]),
)
def test_nan_or_inf_in_x_raises(kind, data, idx, bad):
    x = data.copy()
    x[idx % x.size] = bad
    with pytest.raises(ValueError, match="x contains"):
        CALLS[kind](x, 0.5, (-100, 100), 1.0)


@FAST
@given(
    kind=kinds,
    q=st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.just(float("nan"))),
)
def test_q_outside_open_unit_interval_raises(kind, q):
    with pytest.raises(ValueError, match="q must be"):
        CALLS[kind](np.arange(5.0), q, (-10, 10), 1.0)


@FAST
@given(kind=kinds, lo=st.floats(-1e6, 1e6), gap=st.floats(0, 1e6))
def test_inverted_or_empty_bounds_raise(kind, lo, gap):
    with pytest.raises(ValueError, match="bounds"):
        CALLS[kind](np.arange(5.0), 0.5, (lo, lo - gap), 1.0)


@FAST
@given(
    kind=kinds,
    budget=st.one_of(st.floats(max_value=0.0), st.sampled_from([float("nan"), float("inf")])),
)
def test_non_positive_budget_raises(kind, budget):
    with pytest.raises(ValueError, match=BUDGET_NAME[kind]):
        CALLS[kind](np.arange(5.0), 0.5, (-10, 10), budget)


@FAST
@given(kind=kinds, shape=st.sampled_from([(), (2, 2, 2), (1, 3, 1, 2)]))
def test_wrong_ndim_raises(kind, shape):
    with pytest.raises(ValueError, match="x must be"):
        CALLS[kind](np.zeros(shape), 0.5, (-10, 10), 1.0)


@FAST
@given(kind=kinds, d=st.integers(2, 4))
def test_bounds_of_wrong_length_raise(kind, d):
    x = np.zeros((5, d))
    with pytest.raises(ValueError, match="bounds"):
        CALLS[kind](x, 0.5, (np.zeros(d + 1), np.ones(d + 1)), 1.0)


@pytest.mark.parametrize("steps", [0, -3, 2.5, True, "10", None])
def test_bad_steps_raise(steps):
    with pytest.raises(ValueError, match="steps"):
        binary_search_quantile(np.arange(5.0), 0.5, (0, 5), rho=1.0, steps=steps)


@pytest.mark.parametrize("beta", [1.0, 0.5, -2, float("nan"), float("inf"), "x"])
def test_bad_beta_raises(beta):
    with pytest.raises(ValueError, match="beta"):
        unbounded_quantile(
            np.arange(5.0), 0.5, (0, 5), epsilon_threshold=1, epsilon_query=1, beta=beta
        )


def test_grid_too_fine_raises():
    with pytest.raises(ValueError, match="beta"):
        grid_size((0, 1e6), 1 + 1e-9)


def test_budget_family_errors():
    x = np.arange(5.0)
    with pytest.raises(ValueError, match="exactly one of rho"):
        exponential_quantile(x, 0.5, (0, 5))
    with pytest.raises(ValueError, match="exactly one of rho"):
        exponential_quantile(x, 0.5, (0, 5), rho=1.0, epsilon=1.0)
    with pytest.raises(ValueError, match="not both families"):
        unbounded_quantile(x, 0.5, (0, 5))
    with pytest.raises(ValueError, match="not both families"):
        unbounded_quantile(x, 0.5, (0, 5), epsilon_threshold=1.0, rho_query=1.0)
    with pytest.raises(ValueError, match="both epsilon_threshold and epsilon_query"):
        unbounded_quantile(x, 0.5, (0, 5), epsilon_threshold=1.0)
    with pytest.raises(ValueError, match="both rho_threshold and rho_query"):
        unbounded_quantile(x, 0.5, (0, 5), rho_query=1.0)
    with pytest.raises(ValueError, match="utility_sensitivity"):
        exponential_quantile(x, 0.5, (0, 5), epsilon=1.0, utility_sensitivity=0.0)


@FAST
@given(
    kind=st.sampled_from(KINDS),
    data=st.lists(st.floats(-1e4, 1e4, allow_nan=False), min_size=1, max_size=20),
    lo=st.floats(-1e3, 1e3),
    width=st.floats(1e-3, 1e3),
    q=st.floats(0.01, 0.99),
    budget=st.sampled_from([1e-4, 0.1, 10.0, 1e8]),
    seed=st.integers(0, 2**32),
)
def test_property_output_inside_bounds(kind, data, lo, width, q, budget, seed):
    v = _call(kind, np.array(data), q, (lo, lo + width), budget=budget, rng=seed)
    assert lo <= v <= lo + width


@pytest.mark.parametrize("shape", [(64, 6), (3000, 200), (50_000, 3)])
def test_binary_search_column_blocks_give_identical_counts(shape):
    # The blocked path (columns contiguous: Fortran-ordered x) must release exactly the same
    # noisy counts as the one-pass-per-step path on the same x and seed: same mechanism, only
    # the exact counts are computed in another order. (3000, 200) spans several blocks of
    # columns; (50_000, 3) has one column per block; ties exercise "<=".
    x = np.random.default_rng(15).normal(size=shape)
    x[: shape[0] // 4] = np.round(x[: shape[0] // 4], 1)
    d = shape[1]
    lo, hi = np.full(d, -3.0), np.full(d, 3.0)
    c_order = QB._binary_search(
        np.ascontiguousarray(x), 0.4, lo, hi, 1.0, 15, np.random.default_rng(8)
    )
    f_order = QB._binary_search(
        np.asfortranarray(x), 0.4, lo, hi, 1.0, 15, np.random.default_rng(8)
    )
    for a, b in zip(c_order, f_order, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(
        binary_search_quantile(np.asfortranarray(x), 0.4, (-3, 3), rho=1.0, steps=15, rng=2),
        binary_search_quantile(np.ascontiguousarray(x), 0.4, (-3, 3), rho=1.0, steps=15, rng=2),
    )


# ----------------------------------------------------------------------------------------------
# the quantiles draw through dpcore.mechanisms and charge the caller's open stage
# ----------------------------------------------------------------------------------------------


def _charged(fn, notion: str = "zcdp"):
    from dpcore import mechanisms
    from dpcore.privacy import Ledger

    led = Ledger(notion)
    with mechanisms.stage(led, "quantile"):
        fn()
    return led


@pytest.mark.parametrize(
    ("call", "budget"),
    [
        (lambda x, b: binary_search_quantile(x, 0.3, b, rho=0.4, steps=9, rng=0), 0.4),
        (lambda x, b: exponential_quantile(x, 0.3, b, rho=0.4, rng=0), 0.4),
        (lambda x, b: QE.exponential_quantile_fast(x, 0.3, b, rho=0.4, rng=0), 0.4),
        (lambda x, b: QE.log_grid_quantile(np.abs(x[:, 0]), 0.7, 10.0, rho=0.4, rng=0), 0.4),
        (lambda x, b: QC.coarse_to_fine_median(x, b, rho=0.4, rng=0), 0.4),
    ],
)
def test_each_routine_charges_its_budget_to_the_open_stage_at_ratio_one(call, budget):
    x = np.random.default_rng(1).normal(size=(300, 5))
    led = _charged(lambda: call(x, (-4.0, 4.0)))
    assert led.total() == pytest.approx(budget, rel=1e-12)
    assert {c.stage for c in led.charges} == {"quantile"}
    assert all(c.ratio == pytest.approx(1.0, rel=1e-12) for c in led.charges)


def test_pure_exponential_quantile_charges_epsilon_and_nothing_outside_a_stage():
    x = np.random.default_rng(1).normal(size=(300, 4))
    led = _charged(lambda: exponential_quantile(x, 0.5, (-4, 4), epsilon=0.8, rng=0), "pure")
    assert led.total() == pytest.approx(0.8, rel=1e-12)
    exponential_quantile(x, 0.5, (-4, 4), epsilon=0.8, rng=0)  # no stage: nothing to charge


@pytest.mark.parametrize("method", ["exponential", "binary_search"])
def test_points_per_person_charges_the_group_cost_with_the_same_output(method):
    # Three values per person: the same draw, charged k^2 rho through sensitivity k.
    x = np.random.default_rng(2).normal(size=(200, 3))
    tripled = np.concatenate([x - 0.1, x, x + 0.1])
    out = {}
    for k in (1, 3):
        led = _charged(
            lambda k=k: out.__setitem__(
                k,
                QC.private_quantile(
                    tripled, 0.5, (-4, 4), rho=0.2, method=method, rng=5, points_per_person=k
                ),
            )
        )
        assert led.total() == pytest.approx(k * k * 0.2, rel=1e-12)
        assert all(c.sensitivity == k and c.ratio == pytest.approx(1.0) for c in led.charges)
    np.testing.assert_array_equal(out[1], out[3])
    with pytest.raises(ValueError, match="points_per_person"):
        QC.private_quantile(x, 0.5, (-4, 4), rho=0.2, method=method, points_per_person=0)
