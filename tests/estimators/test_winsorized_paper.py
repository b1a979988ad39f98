"""PMWM against the paper's numbers (specs/winsorized-tables.md A.2) and its findings.

Repetitions are vectorised as columns, as in tests/estimators/test_winsorized.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from dpcore import quantiles
from dpcore.estimators.winsorized import winsorized_mean, winsorized_mean_zcdp
from dpcore.estimators.winsorized_baselines import (
    clipped_mean_laplace,
)
from dpcore.theory.winsorized import (
    pmwm_error_bound,
    premature_stop_probability,
    trim_level,
    winsorized_exp_limit,
)
from tests.estimators._winsorized_data import BOUNDS, mse_tolerance, paper_data

# ------------------------------------------------------------------------------------------------
# the paper's numbers (zCDP tables, specs/winsorized-tables.md A.2) and findings


@pytest.mark.parametrize(
    ("name", "n", "eta", "paper"),
    [
        ("Gau", 50, 0.0, 0.0298),
        ("Gau", 1000, 0.0, 0.0013),
        ("Skw", 100, 0.0, 0.0161),
        ("Mix", 100, 0.0, 0.3011),
        ("Con", 100, 0.3, 0.1466),
        ("Con", 1000, 0.0, 3.991),
    ],
)
def test_zcdp_table_a2_cells(name: str, n: int, eta: float, paper: float) -> None:
    # rho = 1, bounds [-50, 50], beta = 1.001, split (1/4, 1/4, 1/2). The paper draws c at random
    # in [1, min(100, 0.05 n)) per run; we use c = 10 (the spec's app default; A.3 finds c matters
    # only when eta = 0 and n >= 500). At Gau n = 1000 we get ~.0010 against the paper's .0013
    # (the spec's own re-implementation also got .0010-.0013): with c up to 50 the paper trims
    # more at n = 1000 but the noise is already negligible there; the gap is within tolerance.
    R = 2000
    x = paper_data(name, n, R, np.random.default_rng(11))
    est = winsorized_mean_zcdp(
        x, rho=1.0 * R, bounds=BOUNDS, eta=eta, mean_noise="per_coordinate", rng=12
    )
    mse = float(np.mean((est.mean - 5.0) ** 2))
    assert abs(mse / paper - 1.0) <= mse_tolerance(R), (name, n, eta, mse, paper)


def _winsorized_population_mean(pdf, cdf, tau: float, lo: float, hi: float) -> float:
    """E clip(X, Q(tau), Q(1 - tau)) by quadrature (the large-n limit, spec §9 property 14)."""
    ql = optimize.brentq(lambda t: cdf(t) - tau, lo, hi)
    qu = optimize.brentq(lambda t: cdf(t) - (1 - tau), lo, hi)
    inner = integrate.quad(lambda t: t * pdf(t), ql, qu, limit=200)[0]
    return ql * tau + qu * tau + inner


def test_large_n_limits_contamination_and_skew() -> None:
    # spec §9 property 14 with population values computed here (not copied): Cont with eta = .3
    # -> 5.388, Skewed with eta = .15 -> 5 - .1375 (Lemma G.1). rho = 100, n = 1000: the private
    # interval is close to the empirical quantiles, so the mean over R runs sits at the limit up
    # to the finite-n and outward-quantile effects (O(1/n) in rank, ~ .01 here) plus 5 standard
    # errors of the mean over runs.
    R = 1000
    rng = np.random.default_rng(3)
    cont = paper_data("Con", 1000, R, rng)
    est = winsorized_mean_zcdp(
        cont, rho=100.0 * R, bounds=BOUNDS, eta=0.3, mean_noise="per_coordinate", rng=4
    )
    pdf = lambda t: 0.8 * stats.norm.pdf(t, 5) + 0.2 * stats.norm.pdf(t, 15)  # noqa: E731
    cdf = lambda t: 0.8 * stats.norm.cdf(t, 5) + 0.2 * stats.norm.cdf(t, 15)  # noqa: E731
    limit = _winsorized_population_mean(pdf, cdf, 0.3, -10, 30)
    assert limit == pytest.approx(5.388, abs=1e-3)
    se = est.mean.std() / math.sqrt(R)
    assert abs(est.mean.mean() - limit) <= 5 * se + 0.01

    skw = paper_data("Skw", 1000, R, rng)
    est = winsorized_mean_zcdp(
        skw, rho=100.0 * R, bounds=BOUNDS, eta=0.15, mean_noise="per_coordinate", rng=5
    )
    limit = 4.0 + winsorized_exp_limit(0.15)
    assert limit - 5 == pytest.approx(-0.1375, abs=1e-4)
    se = est.mean.std() / math.sqrt(R)
    assert abs(est.mean.mean() - limit) <= 5 * se + 0.01


def test_robust_under_contamination_where_clipped_mean_breaks() -> None:
    # The paper's Cont data (20% of points shifted by +10, target 5). Any non-robust estimator goes
    # to 7 (MSE ~ 4); PMWM with eta = 0.3 stays near its limit 5.388 (MSE ~ .15), in both the pure
    # and the zCDP version. Pure eps = 1, n = 1000 (spec §9 property 13/14).
    R = 1000
    x = paper_data("Con", 1000, R, np.random.default_rng(8))
    robust = winsorized_mean(x, epsilon=1.0 * R, bounds=BOUNDS, eta=0.3, rng=9).mean
    plain = winsorized_mean(x, epsilon=1.0 * R, bounds=BOUNDS, eta=0.0, rng=10).mean
    clipped = clipped_mean_laplace(x, epsilon=1.0 * R, bounds=BOUNDS, rng=11).mean
    mse = {
        k: float(np.mean((v - 5) ** 2))
        for k, v in [("robust", robust), ("plain", plain), ("clipped", clipped)]
    }
    # clipped: bias 2 (+ Laplace noise var 2 (100/1000)^2 = .02) -> ~4.02; robust: ~ .388^2 = .15
    assert mse["clipped"] == pytest.approx(4.02, rel=0.1)
    assert mse["plain"] == pytest.approx(4.0, rel=0.1)
    assert mse["robust"] < 0.2
    assert mse["robust"] < mse["clipped"] / 15


def test_pure_default_accuracy_and_clipped_mean_comparison() -> None:
    # spec §9 property 13 (the spec's own 500-run prototype numbers): Gaussian n = 1000, eps = 1:
    # PMWM ~ .0015, clipped mean with bounds +-50 ~ .018 (= 2 (100/(1000))^2 = .02 Laplace var).
    R = 2000
    x = paper_data("Gau", 1000, R, np.random.default_rng(21))
    pm = winsorized_mean(x, epsilon=1.0 * R, bounds=BOUNDS, rng=22).mean
    cm = clipped_mean_laplace(x, epsilon=1.0 * R, bounds=BOUNDS, rng=23).mean
    mse_pm = float(np.mean((pm - 5) ** 2))
    mse_cm = float(np.mean((cm - 5) ** 2))
    tol = 4 * math.sqrt(2 / 500 + 2 / R)
    assert abs(mse_pm / 0.0015 - 1) <= tol
    assert mse_cm == pytest.approx(0.02 + 0.001, rel=4 * math.sqrt(2 / R) + 0.05)
    assert mse_pm < mse_cm / 5


@pytest.mark.parametrize(
    ("n", "eps", "rate"), [(100, 1.0, 0.04), (50, 2.0, 0.035), (100, 0.5, 0.99), (50, 1.0, 0.99)]
)
def test_premature_stop_rates(n: int, eps: float, rate: float) -> None:
    # spec §2.6 table / §9 property 15 (+-5 points): fraction of runs where a private quantile lands
    # on the wrong side of the median, pure defaults, N(5, 1), bounds +-50.
    R = 2000
    x = np.random.default_rng(n).normal(5, 1, (n, R))
    est = winsorized_mean(x, epsilon=eps * R, bounds=BOUNDS, rng=int(eps * 10))
    L, U = est.diagnostics.raw_interval
    wrong = float(np.mean((U < 5) | (L > 5)))
    assert abs(wrong - rate) <= 0.05
    # and the approximate formula agrees (two walks, K_below ~ log_beta(distance to the data + 1))
    tau = trim_level(n, 10, 0)
    below_up = np.log(x.min(axis=0).mean() + 50 + 1) / math.log(
        1.001
    )  # grid points from a to the data
    below_lo = np.log(50 - x.max(axis=0).mean() + 1) / math.log(1.001)  # from b down to the data
    p_up = premature_stop_probability(n, 1 - tau, below_up, epsilon_query=eps / 8)
    p_lo = premature_stop_probability(n, 1 - tau, below_lo, epsilon_query=eps / 8)
    assert abs(1 - (1 - p_up) * (1 - p_lo) - rate) <= 0.05


def test_quantile_window_lemma_e1() -> None:
    # spec §5 "Quantile accuracy" (exponential-noise Lemma E.1) and §9 property 16, checked as a
    # two-sided window around the empirical (1 - tau) quantile for the upper end:
    #   P(U < w1) <= K exp(-eps_Q g1)  when #{x < w1} <= q n - g1 (early stop inside the data),
    #   P(U > w2) <= exp(-eps_T g2)    when #{x <= w2} >= q n + g2 (threshold noise overshoot).
    # Both targets are set to 1%; we allow 1% + 4 binomial standard errors.
    # Finding (disagreeing with the spec's "outward" reading of §2.3): with n = 1000, eps = 1 the
    # upper end lands *below* the empirical 0.99 quantile in ~70% of runs, because the many query
    # noises E_i near the target can stop the walk a few ranks early; only the threshold noise is
    # outward. The window is what the theory guarantees.
    R, n, eps = 1000, 1000, 2.0
    x = np.random.default_rng(2).normal(5, 1, (n, R))
    est = winsorized_mean(x, epsilon=eps * R, bounds=BOUNDS, c=25, rng=3)
    U = est.diagnostics.raw_interval[1]
    q = 1 - est.diagnostics.tau
    eps_q = eps_t = eps / 8
    K = quantiles.grid_size(BOUNDS, 1.001)
    g1 = math.log(K / 0.01) / eps_q
    g2 = math.log(1 / 0.01) / eps_t
    xs = np.sort(x, axis=0)
    w1 = xs[int(math.floor(q * n - g1))]  # #{x < w1} = floor(q n - g1)
    w2 = xs[int(math.ceil(q * n + g2)) - 1]  # #{x <= w2} = ceil(q n + g2)
    tol = 0.01 + 4 * math.sqrt(0.01 * 0.99 / R)
    assert np.mean(U < w1) <= tol
    assert np.mean(U > w2) <= tol


@pytest.mark.slow
def test_accuracy_improves_with_n_and_budget() -> None:
    R = 1000
    errs = {}
    for n, eps in [(200, 1.0), (2000, 1.0), (2000, 4.0)]:
        x = np.random.default_rng(n).normal(5, 1, (n, R))
        errs[(n, eps)] = float(
            np.mean((winsorized_mean(x, epsilon=eps * R, bounds=BOUNDS, rng=1).mean - 5) ** 2)
        )
    assert errs[(2000, 1.0)] < errs[(200, 1.0)] / 3
    assert errs[(2000, 4.0)] < errs[(2000, 1.0)]


def test_theory_bound_terms() -> None:
    b = pmwm_error_bound(np.array([100.0, 400.0]), 2.0, epsilon=1.0, eta=0.04, delta=math.exp(-1))
    np.testing.assert_allclose(b.sampling, 2 / np.sqrt([100, 400]))
    np.testing.assert_allclose(b.privacy, 2 / np.sqrt([100, 400]))
    np.testing.assert_allclose(b.contamination, 0.4)
    bz = pmwm_error_bound(100.0, 1.0, rho=1.0, delta=math.exp(-1))
    assert float(bz.privacy) == pytest.approx(0.1)
