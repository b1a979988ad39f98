"""Gaussian-mechanism clipped mean, public and private radius (specs/plan.md §5c)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import registry
from dpcore.data import generate
from dpcore.estimators.gaussian import clip_rows, gaussian_clipped_mean, gaussian_private_radius
from dpcore.estimators.plan import PlanDiagnostics, plan_noscale
from dpcore.privacy import Budget


def test_public_radius_noise_scale_and_ledger() -> None:
    ds = generate("gaussian", 500, 1500, 0.0, rng=0)
    est = gaussian_clipped_mean(ds.x, rho=0.5, bounds=ds.bounds, rng=1)
    C = est.diagnostics.clip_radius
    assert math.isclose(C, float(np.linalg.norm((ds.bounds[1] - ds.bounds[0]) / 2)))
    tau = 2 * C / (500 * math.sqrt(2 * 0.5))
    np.testing.assert_allclose(est.diagnostics.noise_std, tau)
    assert est.ledger.total() == 0.5
    z = (est.mean - est.diagnostics.noiseless_mean) / tau
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert stats.kstest(z, "norm", args=(0, 1.3)).pvalue < 1e-3
    assert not est.diagnostics.clipped.any()


def test_clip_rows_sensitivity_on_worst_case_neighbours() -> None:
    rng = np.random.default_rng(1)
    y = rng.standard_normal((50, 4))
    y2 = y.copy()
    y[0], y2[0] = [1e5, 0, 0, 0], [-1e5, 0, 0, 0]
    a, mask, _ = clip_rows(y, 1.5)
    b, _, _ = clip_rows(y2, 1.5)
    assert math.isclose(np.linalg.norm(a.sum(0) - b.sum(0)), 3.0, rel_tol=1e-12)
    assert np.all(np.linalg.norm(a, axis=1) <= 1.5 * (1 + 1e-12)) and mask[0]


@pytest.mark.parametrize("rho", [1.0, 0.37, 0.01])
def test_private_radius_ledger_and_isotropic_noise(rho: float) -> None:
    ds = generate("gaussian", 2000, 8, 2.0, rng=2)
    est = registry.run("gaussian_private", ds, Budget.zcdp(rho), rng=3)
    assert est.ledger.total() == pytest.approx(rho, rel=1e-12)  # ulps of the eps^2/8 conversions
    dg = est.diagnostics_as(PlanDiagnostics)
    assert set(dg.budgets) == {"center", "radius", "noise"}
    ns = est.diagnostics.noise_std
    np.testing.assert_allclose(ns, ns[0])
    np.testing.assert_allclose(est.diagnostics.scale, 1.0)
    tau = math.sqrt(2 * est.diagnostics.clip_radius**2 / dg.budgets["noise"]) / ds.n
    assert math.isclose(ns[0], tau, rel_tol=1e-12)


def test_private_radius_clips_only_a_few_rows() -> None:
    # The rank slack is the binary search's rank error alone (Lemma 2.8): with a large budget only
    # about that many rows are clipped, far fewer than PLAN's sqrt(n).
    ds = generate("gaussian", 10_000, 16, 0.0, rng=4)
    est = registry.run("gaussian_private", ds, Budget.zcdp(20.0), rng=5)
    k = est.diagnostics_as(PlanDiagnostics).rank_slack
    assert k < math.sqrt(ds.n)
    assert est.diagnostics.clipped.sum() <= 2 * k + 3


def test_with_plan_settings_it_is_plan_without_scaling() -> None:
    ds = generate("gaussian", 1500, 6, 1.0, rng=6)
    a = gaussian_private_radius(
        ds.x, rho=0.8, bounds=ds.bounds, quantile="exponential", rank_slack_kind="plan", rng=7
    )
    b = plan_noscale(ds.x, rho=0.8, bounds=ds.bounds, rng=7)
    np.testing.assert_array_equal(a.mean, b.mean)


def test_private_beats_public_box_radius() -> None:
    ds = generate("gaussian", 4000, 32, 1.0, rng=8)
    pub = registry.run("gaussian_public", ds, Budget.zcdp(0.5), rng=9)
    prv = registry.run("gaussian_private", ds, Budget.zcdp(0.5), rng=9)
    xbar = ds.x.mean(axis=0)
    assert np.linalg.norm(prv.mean - xbar) < np.linalg.norm(pub.mean - xbar)


def test_bad_input() -> None:
    ds = generate("gaussian", 50, 3, 0.0, rng=0)
    with pytest.raises(ValueError, match="rho"):
        gaussian_private_radius(ds.x, rho=0.0, bounds=ds.bounds)
    with pytest.raises(ValueError, match="bounds"):
        gaussian_private_radius(ds.x, rho=1.0, bounds=None)
    with pytest.raises(ValueError, match="radius"):
        gaussian_clipped_mean(ds.x, rho=1.0, center=np.zeros(3), radius=-1.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"center": np.nan, "radius": 2.0}, "center must be finite"),
        ({"center": np.array([0.0, np.inf, 0.0]), "radius": 2.0}, "center must be finite"),
        ({"center": 0.0, "radius": np.inf}, "radius must be a positive finite"),
        ({"center": 0.0, "radius": np.nan}, "radius must be a positive finite"),
        ({"bounds": (np.nan, 1.0)}, "bounds must be finite"),
        ({"bounds": (-np.inf, 1.0)}, "bounds must be finite"),
        ({"bounds": (-1.0, 1.0), "center": [0.0, np.nan, 0.0]}, "center must be finite"),
    ],
)
def test_public_inputs_that_are_not_finite_are_refused_naming_the_fix(kwargs, match) -> None:
    x = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.raises(ValueError, match=match) as err:
        gaussian_clipped_mean(x, rho=0.5, rng=0, **kwargs)
    assert "pass" in str(err.value).lower()  # the message says what to pass instead


def test_public_noise_is_drawn_by_the_mechanism_at_ratio_one() -> None:
    est = gaussian_clipped_mean(np.ones((40, 3)), rho=0.5, bounds=(-2.0, 2.0), rng=0)
    (line,) = est.ledger.charges
    assert (line.stage, line.mechanism, line.amount) == ("noisy sum", "gaussian", 0.5)
    assert line.sensitivity == 2 * est.diagnostics.clip_radius
    assert line.ratio == pytest.approx(1.0, rel=1e-12)
