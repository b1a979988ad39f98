"""IOME-style estimator: presets, exact budget, rotation geometry, noise scale, sensitivity (specs/plan.md §5a)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import registry
from dpcore.data import generate
from dpcore.estimators import iome as I
from dpcore.privacy import Budget


# the last two: budgets whose split by hand (prop rho, p1, rho - prop rho - p1) missed rho by an ulp
@pytest.mark.parametrize(
    "rho", [1.0, 0.3, 1 / 3, 0.01, 5.5, 1.0143268430766066, 1.9746458100556956]
)
@pytest.mark.parametrize("name", ["iome_original", "iome_paper"])
def test_ledger_sums_exactly(rho: float, name: str) -> None:
    ds = generate("gaussian", 300, 5, 1.0, rng=0)
    est = registry.run(name, ds, Budget.zcdp(rho), rng=1)
    assert est.ledger.total() == pytest.approx(rho, rel=1e-12)  # ulps of the eps^2/8 conversion
    b = est.diagnostics_as(I.IomeDiagnostics).budgets
    share = I.PRESETS["original" if name == "iome_original" else "paper"]["radius_share"]
    assert math.isclose(b["center"], 0.25 * rho, rel_tol=1e-12)
    assert math.isclose(b["radius"], share * 0.75 * rho, rel_tol=1e-12)
    assert math.isclose(b["noise"], (1 - share) * 0.75 * rho, rel_tol=1e-12)
    assert math.fsum(b.values()) == rho  # exact (dpcore.privacy.split_budget)


def test_presets_and_labels() -> None:
    assert I.PRESETS["original"] == {"steps": 10, "radius_share": 0.25, "offset_factor": 1.0}
    assert I.PRESETS["paper"] == {"steps": 20, "radius_share": 0.01, "offset_factor": 2.0}
    assert registry.get("iome_original").detail == "IOME (original parameters)"
    assert registry.get("iome_paper").label == "IOME"
    assert (
        registry.get("iome_paper").detail
        == "IOME (PLAN paper's parameters, robust centre and radius)"
    )
    # the paper's clip rank doubles both offset terms
    n, D, T, p1, p2 = 10_000, 256, 20, 0.01, 0.99
    assert math.isclose(
        n - I.clip_rank(n, D, T, p1, p2, 2.0), 2 * (n - I.clip_rank(n, D, T, p1, p2, 1.0))
    )
    assert math.isclose(
        I.clip_rank(n, D, T, p1, p2, 1.0), n - 2 * math.sqrt(D / (2 * p2)) - math.sqrt(T / (2 * p1))
    )


def test_noise_is_isotropic_with_the_stated_scale() -> None:
    # Noise std 2C / (n sqrt(2 p2)) in every coordinate (rotation keeps it isotropic). With d = 2048
    # the standardised noise is a sample of 2048 N(0,1): KS at 1e-3 accepts, and rejects 1.3x.
    ds = generate("gaussian", 3000, 2000, 1.0, rng=2)
    est = registry.run("iome_paper", ds, Budget.zcdp(1.0), rng=3)
    dg = est.diagnostics_as(I.IomeDiagnostics)
    p2 = dg.budgets["noise"]
    tau = 2 * dg.clip_radius / (ds.n * math.sqrt(2 * p2))
    np.testing.assert_allclose(dg.noise_std, tau, rtol=1e-12)
    z = (est.mean - dg.noiseless_mean) / tau
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert stats.kstest(z, "norm", args=(0, 1.3)).pvalue < 1e-3


def test_clip_ball_in_original_coordinates() -> None:
    # The clip ball ||R(x - m0) - c|| <= C is, for real x, the ball around ball_center of radius
    # ball_radius (the padded part of R^T c only shrinks it): the clipped mask agrees.
    ds = generate("gaussian", 800, 6, 2.0, rng=4)
    est = registry.run("iome_paper", ds, Budget.zcdp(2.0), rng=5)
    ex = est.diagnostics_as(I.IomeDiagnostics)
    dist = np.linalg.norm(ds.x - ex.ball_center, axis=1)
    inside = dist <= ex.ball_radius
    assert (
        np.array_equal(~inside, est.diagnostics.clipped)
        or np.sum(~inside != est.diagnostics.clipped) <= 1
    )
    assert ex.padded_dim == 8 and ex.rotation.dim == 8
    # the centre mapped back is R^T c + m0
    R = ex.rotation
    np.testing.assert_allclose(
        est.diagnostics.center, ex.box_center + R.inverse(ex.center_rotated), atol=1e-9
    )


def test_sensitivity_of_the_rotated_clipped_sum() -> None:
    # Replace-one worst case: with the same (data-independent) rotation, medians and C, moving one
    # row from far out on one side to far out on the other moves the clipped sum by exactly 2C.
    rng = np.random.default_rng(6)
    d = 12
    R = I.RandomizedHadamard(d, rng=1)
    x = rng.standard_normal((100, d))
    x2 = x.copy()
    v = rng.standard_normal(d)
    x[0], x2[0] = 1e6 * v, -1e6 * v
    c, C = np.zeros(R.dim), 2.5

    def clipped_sum(a: np.ndarray) -> np.ndarray:
        y = R.forward(a) - c
        nr = np.linalg.norm(y, axis=1)
        return (np.minimum(1, C / nr)[:, None] * y).sum(axis=0)

    assert math.isclose(np.linalg.norm(clipped_sum(x) - clipped_sum(x2)), 2 * C, rel_tol=1e-9)


def test_data_far_from_the_origin_is_handled() -> None:
    # Data centred at 1000 (box [900, 1100]): subtracting the public box centre before rotating keeps
    # the rotated medians inside the search range.
    rng = np.random.default_rng(7)
    x = 1000 + rng.standard_normal((4000, 16))
    est = I.iome_paper(x, rho=1.0, bounds=(900.0, 1100.0), rng=8)
    assert np.max(np.abs(est.mean - x.mean(axis=0))) < 0.5


def test_accuracy_improves_with_rho() -> None:
    # Averages over 4 runs; the noise term scales as 1/sqrt(rho): 16x the budget must clearly help.
    def err(rho: float) -> float:
        out = []
        for s in range(4):
            ds = generate("gaussian", 4000, 32, 0.0, rng=50 + s)
            est = registry.run("iome_paper", ds, Budget.zcdp(rho), rng=s)
            out.append(np.linalg.norm(est.mean - ds.x.mean(axis=0)))
        return float(np.mean(out))

    assert 2 * err(1.6) < err(0.1)


def test_bad_input_and_small_n_warning() -> None:
    ds = generate("gaussian", 100, 4, 0.0, rng=0)
    with pytest.raises(ValueError, match="rho"):
        I.iome(ds.x, rho=-1.0, bounds=ds.bounds)
    with pytest.raises(ValueError, match="median_share"):
        I.iome(ds.x, rho=1.0, bounds=ds.bounds, median_share=1.5)
    with pytest.raises(ValueError, match="bounds"):
        I.iome(ds.x, rho=1.0, bounds=None)
    est = I.iome(ds.x[:30], rho=0.01, bounds=ds.bounds, rng=0)
    assert est.diagnostics.warnings and est.ledger.total() == pytest.approx(0.01, rel=1e-12)


def test_iome_takes_its_medians_from_dpcore_quantiles_not_from_plan() -> None:
    import importlib
    import inspect
    import pkgutil

    from dpcore.estimators import iome as iome_module

    names = [m.name for m in pkgutil.iter_modules(iome_module.__path__)]
    assert {"rotate", "centre", "radius", "noise", "compose"} <= set(names)
    for name in names:
        module = importlib.import_module(f"dpcore.estimators.iome.{name}")
        assert "estimators.plan" not in inspect.getsource(module)
    assert "estimators.plan" not in inspect.getsource(iome_module)


@pytest.mark.parametrize("center_step", ["binary_search", "coarse_to_fine", "coinpress"])
@pytest.mark.parametrize("radius_step", ["log_grid", "binary_search"])
def test_every_stage_is_drawn_by_a_mechanism_at_ratio_one(center_step, radius_step) -> None:
    ds = generate("gaussian", 300, 5, 1.0, rng=0)
    est = registry.run(
        "iome_original",
        ds,
        Budget.zcdp(0.5),
        rng=1,
        center_step=center_step,
        radius_step=radius_step,
    )
    assert est.ledger.total() == pytest.approx(0.5, rel=1e-12)
    assert {c.stage for c in est.ledger.charges} >= {"clip radius", "noisy sum"}
    for c in est.ledger.charges:
        assert c.mechanism in ("gaussian", "exponential"), c
        assert c.ratio == pytest.approx(1.0, rel=1e-12), c


def test_each_variant_is_a_spec_of_the_same_stages() -> None:
    import dataclasses

    assert I.iome_as_published == dataclasses.replace(
        I.iome_paper, center_step="binary_search", radius_step="binary_search"
    )
    for name, preset in (("iome_original", "original"), ("iome_paper", "paper")):
        spec = registry.get(name).func
        assert isinstance(spec, I.IomeSpec)
        assert {k: getattr(spec, k) for k in I.PRESETS[preset]} == I.PRESETS[preset]
    ds = generate("gaussian", 300, 5, 1.0, rng=0)
    a = I.iome_original(ds.x, rho=0.5, bounds=ds.bounds, rng=4)
    b = I.iome(ds.x, rho=0.5, bounds=ds.bounds, rng=4, **I.PRESETS["original"])
    assert np.array_equal(a.mean, b.mean)
