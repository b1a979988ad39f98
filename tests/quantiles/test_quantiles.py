"""Tests for dpcore.quantiles (specs/plan.md §3, specs/winsorized.md §2): the facts the three
routines share, binary search, the exponential mechanism and the charges to the caller's stage
(the unbounded quantile is in test_quantiles_unbounded.py, bad input in
test_quantiles_inputs.py).

Statistical tests use fixed seeds. Each goodness-of-fit test passes at p > 1e-4 (a false alarm
rate of 1e-4 per test, so a correct implementation essentially never fails) and is shown to have
power: the same statistic computed against the same reference with one noise scale changed by
30% must give p < 1e-6. Sample sizes were chosen from the theory (expected chi-square
non-centrality / KS distance under the 1.3x alternative), not by tuning seeds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore.quantiles import (
    UnboundedQuantile,
    binary_search_quantile,
    binary_search_trace,
    exponential_quantile,
    exponential_quantile_probabilities,
    rank_error_bound,
    unbounded_quantile,
)
from dpcore.quantiles import binary_search as QB
from dpcore.quantiles import coordinate as QC
from dpcore.quantiles import exponential as QE
from tests.quantiles._quantiles import KINDS, P_OK, P_REJECT, _call, _chisquare_p

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
