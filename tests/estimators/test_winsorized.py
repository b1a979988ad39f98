"""Tests of the private modified winsorized mean (PMWM) and its simple competitors.

Spec: specs/winsorized.md §9 (testable properties) and specs/winsorized-tables.md (paper numbers).

Vectorising repetitions: PMWM on an (n, R) array with total budget ``R * eps`` runs R independent
copies, one per column, each with exactly the budget ``eps`` (every part is divided by d = R; the
pure mean step uses scale ``d w/(n eps3)`` = ``w/(n eps/2)`` and, with
``mean_noise="per_coordinate"``, the zCDP mean step uses ``rho3/d``). So one call replaces a loop
over R runs; the columns share nothing but the generator.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import quantiles
from dpcore.estimators.winsorized import DEFAULT_SPLIT, winsorized_mean, winsorized_mean_zcdp
from dpcore.privacy import zcdp_to_approx
from dpcore.theory.winsorized import (
    trim_level,
)
from tests.estimators._winsorized_data import BOUNDS

# ------------------------------------------------------------------------------------------------
# exact properties


@pytest.mark.parametrize(
    ("c", "n", "eta", "tau"),
    [
        (10, 50, 0.0, 0.025),
        (10, 1000, 0.0, 0.01),
        (10, 1000, 0.3, 0.3),
        (3, 20, 0.3, 0.3),
        (5, 100, 0.01, 0.025),
    ],
)
def test_trim_rule(c: float, n: int, eta: float, tau: float) -> None:
    # spec §9 property 7
    assert trim_level(n, c, eta) == pytest.approx(tau, abs=0)


@pytest.mark.parametrize(
    ("func", "kw", "unit"),
    [(winsorized_mean, {"epsilon": 1.7}, "pure"), (winsorized_mean_zcdp, {"rho": 0.3}, "zcdp")],
)
@pytest.mark.parametrize("d", [1, 5])
def test_ledger_sums_exactly(func, kw, unit, d: int) -> None:
    # spec §9 property 8: parts sum to the budget; each quantile charges eps1/2 + eps2/2; every
    # per-coordinate part is the part divided by d.
    budget = next(iter(kw.values()))
    x = np.random.default_rng(0).normal(5, 1, (300, d))
    est = func(x if d > 1 else x[:, 0], bounds=BOUNDS, rng=1, **kw)
    assert est.ledger.notion == unit
    # the mechanisms compute each walk's charge from its per-coordinate budget (under zCDP from
    # the walk's epsilon, (eps_T + eps_Q)^2 / 2 per coordinate), so the sums hold up to rounding
    assert est.ledger.total() == pytest.approx(budget, rel=1e-15)
    stages = est.ledger.by_stage()
    s1, s2, s3 = DEFAULT_SPLIT
    for end in ("upper", "lower"):
        assert stages[f"{end} quantile: threshold"] + stages[
            f"{end} quantile: queries"
        ] == pytest.approx((s1 + s2) * budget / 2, rel=1e-15)
        assert stages[f"{end} quantile: threshold"] == pytest.approx(s1 * budget / 2, rel=1e-15)
    per = est.diagnostics.budget_per_coordinate
    assert per["threshold (each quantile)"] == s1 * budget / 2 / d
    assert per["query (each quantile)"] == s2 * budget / 2 / d
    assert per["mean"] == s3 * budget / d


def test_ledger_custom_split() -> None:
    est = winsorized_mean(
        np.arange(100.0), epsilon=2.0, bounds=(0, 200), split=(0.1, 0.3, 0.6), rng=0
    )
    assert est.ledger.total() == pytest.approx(2.0, rel=1e-15)
    assert est.ledger.by_stage()["winsorized mean: Laplace noise"] == pytest.approx(1.2, rel=1e-15)


def test_interval_inside_bounds_and_loop_bound() -> None:
    # spec §9 property 1: output in [a, b]; at most K = ceil(log_beta(b - a + 1)) grid points;
    # no overflow even with beta = 2 and the largest range dpcore.limits allows (1e100).
    x = np.random.default_rng(0).normal(0, 1, (40, 50))
    for beta, bounds in [(1.001, BOUNDS), (2.0, (-1e100, 1e100)), (1.5, (-1e12, 1e12))]:
        est = winsorized_mean(x, epsilon=0.5 * 50, bounds=bounds, beta=beta, rng=3)
        L, U = est.diagnostics.clip_interval
        assert np.all(L >= bounds[0]) and np.all(U <= bounds[1]) and np.all(L <= U)
        K = quantiles.grid_size(bounds, beta)
        ex = est.diagnostics
        assert np.all(ex.steps_upper <= K + 1) and np.all(ex.steps_lower <= K + 1)
        assert np.all(np.isfinite(est.mean))


def test_translation_equivariance() -> None:
    # spec §9 property 5: shifting x, a and b by s shifts the interval and the release by s
    # (same random draws; grid points g_i = a + beta^i - 1 shift with a).
    x = np.random.default_rng(5).normal(3, 2, 400)
    s = 1024.0  # a power of two keeps the shifted grid exactly representable near the data
    e0 = winsorized_mean(x, epsilon=1.0, bounds=BOUNDS, rng=9)
    e1 = winsorized_mean(x + s, epsilon=1.0, bounds=(BOUNDS[0] + s, BOUNDS[1] + s), rng=9)
    np.testing.assert_allclose(
        e1.diagnostics.clip_interval[0], e0.diagnostics.clip_interval[0] + s, atol=1e-9
    )
    np.testing.assert_allclose(
        e1.diagnostics.clip_interval[1], e0.diagnostics.clip_interval[1] + s, atol=1e-9
    )
    np.testing.assert_allclose(e1.mean, e0.mean + s, atol=1e-9)
    np.testing.assert_array_equal(e1.diagnostics.steps_upper, e0.diagnostics.steps_upper)


def test_noise_scale_and_noiseless_mean_exact() -> None:
    # spec §9 property 6: all points inside [L, U] => noiseless part = mean(x); noise scale
    # (U - L)/(n eps3) exactly.
    x = np.random.default_rng(0).uniform(4, 6, 500)
    eps = 2.0
    est = winsorized_mean(x, epsilon=eps, bounds=(0, 10), c=0.001, rng=1)  # tau tiny: wide interval
    L, U = (v[0] for v in est.diagnostics.clip_interval)
    if np.all((x >= L) & (x <= U)):
        assert est.diagnostics.noiseless_mean[0] == pytest.approx(x.mean(), rel=1e-15)
    assert est.diagnostics.noise_scale[0] == pytest.approx((U - L) / (500 * eps * 0.5), rel=1e-15)
    assert est.diagnostics.noise_std[0] == pytest.approx(
        math.sqrt(2) * (U - L) / (500 * eps * 0.5), rel=1e-15
    )


def test_zcdp_noise_scales_exact() -> None:
    x = np.random.default_rng(0).normal(0, [1.0, 5.0, 0.2], (800, 3))
    rho = 0.8
    joint = winsorized_mean_zcdp(x, rho=rho, bounds=BOUNDS, rng=2)
    L, U = joint.diagnostics.clip_interval
    w = U - L
    assert joint.diagnostics.noise_std == pytest.approx(
        np.full(3, np.linalg.norm(w) / (800 * math.sqrt(2 * rho / 2)))
    )
    per = winsorized_mean_zcdp(x, rho=rho, bounds=BOUNDS, mean_noise="per_coordinate", rng=2)
    L, U = per.diagnostics.clip_interval
    assert per.diagnostics.noise_std == pytest.approx((U - L) / (800 * math.sqrt(2 * rho / 2 / 3)))


def _fixed_quantiles(monkeypatch: pytest.MonkeyPatch, upper: float, lower: float) -> None:
    def fake(x, q, bounds, **kw):  # noqa: ANN001, ANN003, ARG001
        d = np.asarray(x).reshape(len(x), -1).shape[1]
        v = np.full(d, upper if q >= 0.5 else lower)
        return quantiles.UnboundedQuantile(v, np.ones(d, int), np.zeros(d, bool))

    monkeypatch.setattr(quantiles.unbounded, "walk_columns", fake)  # PMWM's walks


def test_fallback_fires_and_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    # spec §9 property 9: an inverted private interval falls back to [a, b], and says so.
    _fixed_quantiles(monkeypatch, upper=1.0, lower=3.0)
    x = np.linspace(-5, 5, 100)
    est = winsorized_mean(x, epsilon=1.0, bounds=(-10, 10), rng=0)
    L, U = est.diagnostics.clip_interval
    assert (L[0], U[0]) == (-10.0, 10.0)
    assert est.diagnostics.fallback.tolist() == [True]
    assert est.diagnostics.fallback_count == 1
    assert any("Fallback fired" in w for w in est.diagnostics.warnings)
    assert est.diagnostics.noiseless_mean[0] == pytest.approx(x.mean())
    assert est.diagnostics.noise_scale[0] == pytest.approx(20 / (100 * 0.5))


def test_fallback_matches_raw_interval_naturally() -> None:
    # With n = 50, eps = 1 the pure walks stop prematurely most of the time (spec §2.6): the
    # fallback must fire exactly where the raw interval is inverted, and be reported.
    x = np.random.default_rng(0).normal(5, 1, (50, 400))
    est = winsorized_mean(x, epsilon=400.0, bounds=BOUNDS, rng=1)
    Lr, Ur = est.diagnostics.raw_interval
    fb = est.diagnostics.fallback
    np.testing.assert_array_equal(fb, Ur < Lr)
    assert fb.sum() > 0
    L, U = est.diagnostics.clip_interval
    assert np.all(L[fb] == -50) and np.all(U[fb] == 50)
    assert any("Fallback" in w for w in est.diagnostics.warnings)
    assert any("Premature-stop risk" in w for w in est.diagnostics.warnings)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"x": [1.0, np.nan, 2.0], "epsilon": 1.0, "bounds": BOUNDS}, "NaN"),
        ({"x": [1.0, 2.0, 3.0], "epsilon": 0.0, "bounds": BOUNDS}, "epsilon"),
        ({"x": [1.0, 2.0, 3.0], "epsilon": 1.0, "bounds": (5, -5)}, "inverted"),
        ({"x": [1.0, 2.0, 3.0], "epsilon": 1.0, "bounds": None}, "bounds"),
        ({"x": [1.0], "epsilon": 1.0, "bounds": BOUNDS}, "at least 2"),
        (
            {"x": [1.0, 2.0, 3.0], "epsilon": 1.0, "bounds": BOUNDS, "split": (0.5, 0.5, 0.5)},
            "split",
        ),
        ({"x": [1.0, 2.0, 3.0], "epsilon": 1.0, "bounds": BOUNDS, "beta": 1.0}, "beta"),
        ({"x": [1.0, 2.0, 3.0], "epsilon": 1.0, "bounds": BOUNDS, "eta": 0.6}, "eta"),
        ({"x": np.ones((3, 2, 2)), "epsilon": 1.0, "bounds": BOUNDS}, "1-D"),
    ],
)
def test_bad_input(kwargs: dict, match: str) -> None:
    x = kwargs.pop("x")
    with pytest.raises(ValueError, match=match):
        winsorized_mean(x, **kwargs)


def test_reproducible_by_seed() -> None:
    x = np.random.default_rng(0).normal(5, 1, 200)
    a = winsorized_mean(x, epsilon=1.0, bounds=BOUNDS, rng=42).mean
    b = winsorized_mean(x, epsilon=1.0, bounds=BOUNDS, rng=42).mean
    assert a == b


# ------------------------------------------------------------------------------------------------
# noise distributions (must fail at a 1.3x mis-scaled reference)


def test_laplace_mean_noise_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    # Fixed interval: the released noise divided by the stated scale must be Lap(1).
    _fixed_quantiles(monkeypatch, upper=8.0, lower=2.0)
    R = 4000
    x = np.random.default_rng(0).normal(5, 1, (60, R))
    est = winsorized_mean(x, epsilon=1.0 * R, bounds=BOUNDS, rng=1)
    z = (est.mean - est.diagnostics.noiseless_mean) / est.diagnostics.noise_scale
    assert est.diagnostics.noise_scale[0] == pytest.approx(6.0 / (60 * 0.5))
    # KS at a 1e-4 false-alarm rate; a 1.3x wrong scale moves the CDF by ~0.06, far beyond the
    # KS critical value ~ 1.95/sqrt(4000) = 0.031, so it must be rejected.
    assert stats.kstest(z, stats.laplace().cdf).pvalue > 1e-4
    for wrong in (1.3, 1 / 1.3):
        assert stats.kstest(z, stats.laplace(scale=wrong).cdf).pvalue < 1e-4


def test_gaussian_mean_noise_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    _fixed_quantiles(monkeypatch, upper=8.0, lower=2.0)
    R = 4000
    x = np.random.default_rng(0).normal(5, 1, (60, R))
    est = winsorized_mean_zcdp(x, rho=0.5 * R, bounds=BOUNDS, mean_noise="per_coordinate", rng=1)
    assert est.diagnostics.noise_std[0] == pytest.approx(6.0 / (60 * math.sqrt(2 * 0.25)))
    z = (est.mean - est.diagnostics.noiseless_mean) / est.diagnostics.noise_std
    assert stats.kstest(z, stats.norm().cdf).pvalue > 1e-4
    for wrong in (1.3, 1 / 1.3):
        assert stats.kstest(z, stats.norm(scale=wrong).cdf).pvalue < 1e-4


# ------------------------------------------------------------------------------------------------
# privacy: worst-case neighbours


def test_mean_step_sensitivity_on_worst_case_neighbours(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the interval, replacing one point moves the winsorised mean by at most (U - L)/n, and
    # a far-low -> far-high swap attains it exactly.
    _fixed_quantiles(monkeypatch, upper=7.0, lower=3.0)
    x = np.random.default_rng(0).normal(5, 1, 100)
    x2 = x.copy()
    x[0], x2[0] = -1e6, 1e6
    m = winsorized_mean(x, epsilon=1.0, bounds=BOUNDS, rng=0).diagnostics.noiseless_mean[0]
    m2 = winsorized_mean(x2, epsilon=1.0, bounds=BOUNDS, rng=0).diagnostics.noiseless_mean[0]
    assert m2 - m == pytest.approx(4.0 / 100, rel=1e-12)


@pytest.mark.parametrize("notion", ["pure", "zcdp"])
def test_empirical_privacy_on_neighbours(notion: str) -> None:
    # Swap neighbours: one point moved from far below the data to far above it (the worst case
    # for both quantile counts and the mean). A small range and beta = 1.01 keep it cheap.
    # Pure eps: every bin must satisfy P(bin) <= e^eps P'(bin) (both directions).
    # zCDP rho: no pure bound exists; rho-zCDP implies (eps, delta)-DP with
    # eps = zcdp_to_approx(rho, delta), so P(bin) <= e^eps P'(bin) + delta for every bin.
    R = 40_000
    n = 12
    base = np.linspace(-1, 1, n)
    x, x2 = base.copy(), base.copy()
    x[0], x2[0] = -9.5, 9.5
    bounds = (-10.0, 10.0)
    if notion == "pure":

        def run(data: np.ndarray, seed: int) -> np.ndarray:
            return winsorized_mean(
                np.repeat(data[:, None], R, axis=1),
                epsilon=1.0 * R,
                bounds=bounds,
                beta=1.01,
                c=1,
                rng=seed,
            ).mean

        eps, delta = 1.0, 0.0
    else:

        def run(data: np.ndarray, seed: int) -> np.ndarray:
            return winsorized_mean_zcdp(
                np.repeat(data[:, None], R, axis=1),
                rho=0.5 * R,
                bounds=bounds,
                beta=1.01,
                c=1,
                mean_noise="per_coordinate",
                rng=seed,
            ).mean

        delta = 1e-3
        eps = zcdp_to_approx(0.5, delta, "standard")
    out, out2 = run(x, 1), run(x2, 2)
    edges = np.quantile(np.concatenate([out, out2]), np.linspace(0, 1, 41))
    edges[0], edges[-1] = -np.inf, np.inf
    p1 = np.histogram(out, edges)[0] / R
    p2 = np.histogram(out2, edges)[0] / R
    # slack: 4.5 binomial standard errors of each estimated bin probability
    se = np.sqrt(p1 * (1 - p1) / R) + math.exp(eps) * np.sqrt(p2 * (1 - p2) / R)
    se_rev = np.sqrt(p2 * (1 - p2) / R) + math.exp(eps) * np.sqrt(p1 * (1 - p1) / R)
    assert np.all(p1 <= math.exp(eps) * p2 + delta + 4.5 * se)
    assert np.all(p2 <= math.exp(eps) * p1 + delta + 4.5 * se_rev)
    # the log ratio on well-populated bins, for the pure case, is within eps
    ok = (p1 * R >= 400) & (p2 * R >= 400)
    if notion == "pure":
        assert np.max(np.abs(np.log(p1[ok] / p2[ok]))) <= eps + 4.5 * math.sqrt(2 / 400)
    # and the two output distributions do differ (the check is not vacuous)
    assert stats.ks_2samp(out, out2).pvalue < 1e-3
