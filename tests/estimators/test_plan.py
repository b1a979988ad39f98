"""PLAN: exact properties (specs/plan.md §9.1–9.8), statistical ones (§9.12–9.18), the paper's
findings (§7, §9.14), diagnostics and the variants as specs of the same stages. The privacy checks
are in test_plan_privacy.py, the private quantiles and variance search in test_plan_quantiles.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import registry
from dpcore.data import generate
from dpcore.estimators import plan as P
from dpcore.estimators.iome import IomeDiagnostics, iome
from dpcore.metrics import l2_error
from dpcore.privacy import Budget


def _gauss(n: int, d: int, alpha: float, seed: int):
    return generate("gaussian", n, d, alpha, rng=seed)


# ---------------------------------------------------------------------------------------------
# exact properties
# ---------------------------------------------------------------------------------------------


# 0.48484569794428817: a budget whose no-variance split an ulp-stepped remainder cannot make exact
@pytest.mark.parametrize("rho", [1.0, 0.5, 0.3, 0.01, 1 / 3, 7.77, 0.48484569794428817])
@pytest.mark.parametrize("name", ["plan", "plan_oracle", "plan_noscale", "plan_equal_split"])
def test_ledger_sums_exactly_to_rho(rho: float, name: str) -> None:
    ds = _gauss(300, 4, 1.0, 0)
    est = registry.run(name, ds, Budget.zcdp(rho), rng=1)
    assert est.ledger.total() == pytest.approx(rho, rel=1e-12)  # ulps of the eps^2/8 conversions
    assert est.ledger.notion == "zcdp"
    b = est.diagnostics_as(P.PlanDiagnostics).budgets
    fr = est.diagnostics_as(P.PlanDiagnostics).fractions
    for stage, amount in b.items():
        assert math.isclose(amount, rho * fr[stage], rel_tol=1e-12)
    assert math.fsum(b.values()) == rho  # the stage budgets: exact (dpcore.privacy.split_budget)


def test_default_split_is_the_papers() -> None:
    assert P.DEFAULT_SPLIT == {
        "center": 0.0625,
        "variance": 0.1875,
        "radius": 0.1875,
        "noise": 0.5625,
    }
    ds = _gauss(400, 8, 1.0, 0)
    est = registry.run("plan", ds, Budget.zcdp(1.0), rng=0)
    # dyadic fractions: exact
    assert est.diagnostics_as(P.PlanDiagnostics).budgets == P.DEFAULT_SPLIT
    by = est.ledger.by_stage()
    assert {stage: by[label] for stage, label in P.STAGE_LABELS.items()} == pytest.approx(
        P.DEFAULT_SPLIT, rel=1e-12
    )
    binary = registry.run(
        "plan_l1", generate("binary_plan", 500, 16, 0.25, rng=0), Budget.zcdp(0.5), rng=0
    )
    assert binary.ledger.total() == pytest.approx(0.5, rel=1e-12)
    assert binary.diagnostics_as(P.PlanDiagnostics).fractions == P.BINARY_SPLIT


def test_custom_split_and_bad_splits() -> None:
    ds = _gauss(300, 4, 0.0, 0)
    est = P.plan(
        ds.x,
        rho=2.0,
        bounds=ds.bounds,
        budget_split={"center": 0.25, "variance": 0.25, "radius": 0.25, "noise": 0.25},
        rng=0,
    )
    assert est.ledger.by_stage()[P.STAGE_LABELS["noise"]] == 0.5
    with pytest.raises(ValueError, match="sum to 1"):
        P.plan(
            ds.x,
            rho=1.0,
            bounds=ds.bounds,
            budget_split={"center": 0.5, "variance": 0.5, "radius": 0.5, "noise": 0.5},
        )
    with pytest.raises(ValueError, match="spends nothing"):
        P.plan(ds.x, rho=1.0, bounds=ds.bounds, variances="none", budget_split=P.DEFAULT_SPLIT)
    with pytest.raises(ValueError, match="positive share"):
        P.plan(
            ds.x,
            rho=1.0,
            bounds=ds.bounds,
            budget_split={"center": 0.5, "variance": 0.5, "noise": 0.0, "radius": 0.0},
        )


def test_core_clipping_sensitivity_and_noise_scale() -> None:
    # §9.2-9.4: clipped rows have norm <= C, scaled noise std sqrt(2C^2/rho3), output std
    # sqrt(2C^2/rho3) sigma^^{2/(p+2)} / n, s = sigma^^{-2/(p+2)}.
    rng = np.random.default_rng(0)
    n, d = 500, 6
    sigma = np.array([8.0, 4.0, 2.0, 1.0, 0.5, 0.25])
    x = rng.standard_normal((n, d)) * sigma
    for p in (1.0, 2.0):
        core = P.plan_core(x, np.zeros(d), sigma, 2.0, rho_noise=0.3, p=p, rng=1)
        np.testing.assert_allclose(core.scale, sigma ** (-2 / (p + 2)), rtol=1e-14)
        y = x * core.scale
        factor = np.minimum(1, 2.0 / np.linalg.norm(y, axis=1))
        assert np.all(np.linalg.norm(y * factor[:, None], axis=1) <= 2.0 * (1 + 1e-12))
        assert core.noise_std_scaled == math.sqrt(2 * 2.0**2 / 0.3)
        np.testing.assert_allclose(
            core.noise_std, math.sqrt(2 * 4 / 0.3) * sigma ** (2 / (p + 2)) / n, rtol=1e-12
        )
        # unscaling inverts the scaling exactly: mean - noiseless = eta / (n s)
        np.testing.assert_allclose(
            core.mean - core.noiseless_mean, core.noise / (n * core.scale), rtol=1e-9, atol=1e-15
        )
    np.testing.assert_allclose(P.scale_vector(sigma, 2.0), sigma**-0.5)
    np.testing.assert_allclose(P.scale_vector(sigma, 1.0), sigma ** (-2 / 3))
    np.testing.assert_allclose(P.scale_vector(sigma, 2.0, 0.5), 1 / sigma)
    np.testing.assert_allclose(P.scale_vector(sigma, 2.0, 0.0), np.ones(d))


def test_error_identity_holds_to_machine_precision() -> None:
    # §2 / §9.5: output = xbar - (1/n) sum_J (1 - C/||y_j||)(x_j - mu~) + eta / (n s)
    ds = _gauss(2000, 12, 2.0, 3)
    est = registry.run("plan", ds, Budget.zcdp(0.5), rng=4)
    dg = est.diagnostics_as(P.PlanDiagnostics)
    x, mu, C, s = ds.x, dg.center, dg.clip_radius, dg.scale
    norms = np.linalg.norm((x - mu) * s, axis=1)
    J = norms > C
    assert np.array_equal(J, dg.clipped) and J.any()
    bias = ((1 - C / norms[J])[:, None] * (x[J] - mu)).sum(axis=0) / x.shape[0]
    rhs = x.mean(axis=0) - bias + dg.noise
    np.testing.assert_allclose(est.mean, rhs, rtol=1e-11, atol=1e-10)
    np.testing.assert_allclose(dg.noiseless_mean, x.mean(axis=0) - bias, rtol=1e-11, atol=1e-10)


def test_no_clipping_gives_the_empirical_mean_whatever_the_centre() -> None:
    # §9.6: no noise and C >= max ||y_j|| => output = empirical mean.
    rng = np.random.default_rng(5)
    x = rng.standard_normal((300, 5)) * [5, 1, 1, 0.2, 3] + 7
    for center in (np.zeros(5), np.full(5, 100.0), x.mean(axis=0)):
        core = P.plan_core(x, center, np.array([5, 1, 1, 0.2, 3.0]), 1e6, rho_noise=1.0, rng=0)
        assert not core.clipped.any()
        np.testing.assert_allclose(core.noiseless_mean, x.mean(axis=0), rtol=1e-12)


def test_scale_equivariance_of_the_whole_pipeline() -> None:
    # §9.7: sigma^ -> c sigma^ with U -> c^{-2/(p+2)} U gives the same output for the same rng stream.
    ds = _gauss(1500, 10, 2.0, 6)
    c = 37.0
    for p in (1.0, 2.0):
        a = P.plan(
            ds.x,
            rho=0.7,
            bounds=ds.bounds,
            sigma=ds.true_std,
            variances="oracle",
            p=p,
            radius_universe_kind=50.0,
            rng=11,
        )
        b = P.plan(
            ds.x,
            rho=0.7,
            bounds=ds.bounds,
            sigma=c * ds.true_std,
            variances="oracle",
            p=p,
            radius_universe_kind=50.0 * c ** (-2 / (p + 2)),
            rng=11,
        )
        np.testing.assert_allclose(a.mean, b.mean, rtol=1e-9)
        assert math.isclose(
            b.diagnostics.clip_radius, a.diagnostics.clip_radius * c ** (-2 / (p + 2)), rel_tol=1e-9
        )


def test_noscale_equals_iome_without_rotation() -> None:
    # §9.8: sigma^ = 1 with equal quantile routine, budgets and offset is IOME with R = identity.
    ds = _gauss(3000, 7, 1.0, 8)
    lo, hi = ds.bounds
    m0 = (lo + hi) / 2
    n, T = ds.n, 20
    rho = (
        1.0  # prop 0.25, radius share 0.25 of the rest: 0.25 / 0.1875 / 0.5625, all exact in binary
    )
    U = 500.0
    io = iome(
        ds.x,
        rho=rho,
        bounds=ds.bounds,
        steps=T,
        median_share=0.25,
        radius_share=0.25,
        offset_factor=2.0,
        rotate=False,
        median_bounds=(lo - m0, hi - m0),
        radius_upper=U,
        radius_step="binary_search",
        rng=21,
    )
    m = io.diagnostics_as(IomeDiagnostics).clip_rank
    pl = P.plan(
        ds.x,
        rho=rho,
        bounds=ds.bounds,
        variances="none",
        quantile="binary_search",
        steps=T,
        budget_split={"center": 0.25, "radius": 0.1875, "noise": 0.5625},
        rank_slack_kind=n - m,
        radius_universe_kind=U,
        rng=21,
    )
    np.testing.assert_allclose(pl.diagnostics.center, io.diagnostics.center, rtol=1e-9, atol=1e-9)
    assert math.isclose(pl.diagnostics.clip_radius, io.diagnostics.clip_radius, rel_tol=1e-9)
    np.testing.assert_allclose(pl.mean, io.mean, rtol=1e-9, atol=1e-9)
    assert pl.ledger.total() == pytest.approx(rho, rel=1e-12)
    assert io.ledger.total() == pytest.approx(rho, rel=1e-12)


def test_variance_estimate_constants_and_direction() -> None:
    assert math.isclose(P.chi_square_median_factor(1), (7 / 9) ** 3)
    assert math.isclose(P.chi_square_median_factor(4), (1 - 2 / 36) ** 3)
    reg = P.regularise(np.array([1.0, 2.0, 3.0, 6.0]))
    np.testing.assert_allclose(reg, [4.0, 5.0, 6.0, 9.0])
    assert np.all(P.regularise(np.zeros(3)) > 0)
    q = np.full(1024, 0.01)
    q[:2] = [0.5, -0.1]
    np.testing.assert_allclose(P.binary_variances(q)[:3], [0.25, 1024**-0.4, 1024**-0.4])


def test_variance_estimate_bias_is_wilson_hilferty() -> None:
    # §9.16: one pair per group gives sigma^2 -> median(chi2_1) / (7/9)^3 sigma^2 = 0.9669 sigma^2.
    # n = 20000 -> 10^4 pair values per column; the sample median of chi2_1 has relative sd
    # 1 / (2 f(m) m sqrt(10^4)) = 2.3% per column; averaged over d = 60 columns: 0.30%. The privacy
    # noise (eps = 1.4 per column) adds a rank error of a few points, negligible. Tolerance 4 sd = 1.2%.
    ds = _gauss(20_000, 60, 1.0, 9)
    var = P.variance_estimate(ds.x, ds.bounds, rho=0.1875 * 100, rng=10)
    ratio = float(np.mean(var / ds.true_std**2))
    expected = stats.chi2.median(1) / (7 / 9) ** 3
    assert math.isclose(expected, 0.96691, abs_tol=1e-5)
    assert abs(ratio - expected) < 0.012
    assert abs(ratio * (7 / 9) ** 6 - expected) > 0.5  # the paper's printed direction is far off


def test_binary_frequencies_noise_scale() -> None:
    x = (np.random.default_rng(0).random((400, 2000)) < 0.3).astype(float)
    q, std = P.binary_frequencies(x, (0.0, 1.0), rho=0.2, rng=1)
    assert math.isclose(std, math.sqrt(2000) / 400 / math.sqrt(0.4), rel_tol=1e-12)
    z = (q - x.mean(axis=0)) / std
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert stats.kstest(z, "norm", args=(0, 1.3)).pvalue < 1e-3


# ---------------------------------------------------------------------------------------------
# statistical properties
# ---------------------------------------------------------------------------------------------


def test_output_noise_matches_the_stated_scale() -> None:
    # §9.12 in one run: with d = 3000 coordinates, (mean - noiseless)/noise_std is a sample of 3000
    # independent N(0, 1) values. KS at 1e-3 accepts it and rejects a reference 1.3x too wide.
    ds = _gauss(2000, 3000, 1.0, 12)
    est = registry.run("plan", ds, Budget.zcdp(1.0), rng=13)
    z = (est.mean - est.diagnostics.noiseless_mean) / est.diagnostics.noise_std
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert stats.kstest(z, "norm", args=(0, 1.3)).pvalue < 1e-3
    assert stats.kstest(z, "norm", args=(0, 1 / 1.3)).pvalue < 1e-3
    s = est.diagnostics.scale
    np.testing.assert_allclose(
        est.diagnostics.noise_std * s, est.diagnostics.noise_std[0] * s[0], rtol=1e-12
    )


def test_clipped_fraction_is_about_k_over_n() -> None:
    # §9.15 (and §10.8 for no scaling): with rho large the quantile's rank error is a few points,
    # so the number of clipped rows is k up to that error (tolerance: the rank-error term of k).
    ds = _gauss(10_000, 20, 2.0, 14)
    for name in ("plan_oracle", "plan", "plan_noscale"):
        est = registry.run(name, ds, Budget.zcdp(50.0), rng=15)
        k = est.diagnostics_as(P.PlanDiagnostics).rank_slack
        err = k - math.sqrt(ds.n)
        clipped = int(est.diagnostics.clipped.sum())
        # the log-grid radius also has the grid's own resolution: the rows between
        # neighbouring grid radii around C
        C, norms = est.diagnostics.clip_radius, est.diagnostics_as(P.PlanDiagnostics).norms
        grid = int(np.sum((norms > C / 1.02) & (norms <= C * 1.02)))
        assert abs(clipped - k) <= err + grid + 3, (name, clipped, k)
        assert est.diagnostics.clip_radius < est.diagnostics_as(P.PlanDiagnostics).radius_universe


def test_error_falls_with_n_and_rho() -> None:
    # §9.13: averages of 6 runs each; the noise error scales as 1/(n sqrt(rho)), so quadrupling n
    # or rho must lower the mean error clearly (margin: a factor 1.5).
    def mean_err(n: int, rho: float) -> float:
        errs = []
        for seed in range(6):
            ds = _gauss(n, 32, 1.0, 100 + seed)
            est = registry.run("plan", ds, Budget.zcdp(rho), rng=seed)
            errs.append(l2_error(est.mean, ds.x.mean(axis=0)))
        return float(np.mean(errs))

    base = mean_err(1000, 0.1)
    assert mean_err(4000, 0.1) * 1.5 < base
    assert mean_err(1000, 0.4) * 1.5 < base


def test_noise_error_tracks_the_l1_norm_of_sigma_across_d() -> None:
    # §9.18: PLAN's noise error / (||sigma||_1 / (n sqrt(rho3))) stays roughly constant in d.
    ratios = []
    for d in (32, 128, 512):
        ds = _gauss(4000, d, 2.0, d)
        est = registry.run("plan_oracle", ds, Budget.zcdp(1.0), rng=d)
        noise = float(np.sqrt(np.sum(est.diagnostics.noise_std**2)))
        rho3 = est.diagnostics_as(P.PlanDiagnostics).budgets["noise"]
        ratios.append(noise / (ds.true_std.sum() / (ds.n * math.sqrt(rho3))))
    assert max(ratios) / min(ratios) < 1.5, ratios


@pytest.mark.slow
def test_papers_finding_skewed_and_flat() -> None:
    # §9.14 / Gaussian C: strong skew (sigma_i^2 = (d/i)^2, d = 256, rho = 0.5): PLAN clearly beats
    # IOME and no scaling (the paper: PLAN's lead grows with d; [R]'s C CSV at d=1024: 13.0 vs
    # 19.1 against the statistical mean, our runs score the empirical mean as the paper does).
    # No skew: PLAN and IOME within about 20%. Three seeded runs per estimator.
    def errs(alpha: float, name: str) -> float:
        out = []
        for seed in range(3):
            ds = _gauss(8000, 256, alpha, 200 + seed)
            est = registry.run(name, ds, Budget.zcdp(0.5), rng=seed)
            out.append(l2_error(est.mean, ds.x.mean(axis=0)))
        return float(np.mean(out))

    plan_c, iome_c, noscale_c = (
        errs(2.0, "plan"),
        errs(2.0, "iome_paper"),
        errs(2.0, "plan_noscale"),
    )
    assert plan_c < 0.6 * iome_c and plan_c < 0.6 * noscale_c, (plan_c, iome_c, noscale_c)
    plan_a, iome_a = errs(0.0, "plan"), errs(0.0, "iome_paper")
    assert 0.8 < plan_a / iome_a < 1.25, (plan_a, iome_a)


@pytest.mark.slow
def test_binary_instantiation_beats_iome_with_few_high_variance_bits() -> None:
    # Binary, alpha = 0.25 (quarter of the bits at p = 0.5, rest 0.01), d = 2048, rho = 1/16:
    # PLAN better for small alpha ([R]'s CSV: 16.9 vs 20.5 in half-l1; ours about 16.7 vs 25:
    # our IOME uses 20 steps and the rotated range of iome.py, [R]'s binary runs 10 steps on
    # (0, sqrt(D))). At d = 1024 the lead is smaller (about 8%), so the test uses the paper's d.
    # The finding is about the paper's IOME (binary-search medians): the robust iome_paper with the
    # CoinPress centre closes the gap (16.5 against PLAN's 16.4 here).
    from dpcore.metrics import tv_error

    out = {"plan_l1": [], "iome_paper": []}
    for seed in range(2):
        ds = generate("binary_plan", 4096, 2048, 0.25, rng=300 + seed)
        for name in out:
            extra = {"center_step": "binary_search"} if name == "iome_paper" else {}
            est = registry.run(name, ds, Budget.zcdp(1 / 16), rng=seed, **extra)
            out[name].append(tv_error(est.mean, ds.true_mean))
    assert np.mean(out["plan_l1"]) < 0.85 * np.mean(out["iome_paper"]), out


# ---------------------------------------------------------------------------------------------
# diagnostics, reproducibility, bad input
# ---------------------------------------------------------------------------------------------


def test_diagnostics_for_the_step_by_step_page() -> None:
    ds = _gauss(500, 6, 2.0, 16)
    est = registry.run("plan", ds, Budget.zcdp(1.0), rng=17)
    dg = est.diagnostics_as(P.PlanDiagnostics)
    assert dg.center.shape == dg.scale.shape == dg.noise_std.shape == (6,)
    assert dg.clipped.shape == (500,) and dg.clipped.dtype == bool
    ex = dg
    for key in (
        "sigma_hat",
        "sigma_hat_raw",
        "scale_exponent",
        "p",
        "rank_slack",
        "clip_quantile",
        "radius_universe",
        "norms",
        "noise_std_scaled",
        "budgets",
    ):
        assert hasattr(ex, key)
    assert ex.scale_exponent == 0.25
    np.testing.assert_allclose(dg.scale, ex.sigma_hat**-0.5)
    again = registry.run("plan", ds, Budget.zcdp(1.0), rng=17)
    np.testing.assert_array_equal(est.mean, again.mean)
    eq = registry.run("plan_equal_split", ds, Budget.zcdp(1.0), rng=17)
    assert eq.diagnostics_as(P.PlanDiagnostics).scale_exponent == 0.5
    assert (
        registry.run("plan_noscale", ds, Budget.zcdp(1.0), rng=17)
        .diagnostics_as(P.PlanDiagnostics)
        .scale_exponent
        == 0.0
    )


def test_registry_entries() -> None:
    names = {s.name: s for s in registry.all_estimators()}
    for n in ("plan", "plan_l1", "plan_oracle", "plan_noscale", "plan_equal_split"):
        assert (
            names[n].family == "PLAN"
            and names[n].notion == "zcdp"
            and names[n].neighbouring == "replace-one"
        )
    mine = {
        "plan",
        "plan_l1",
        "plan_oracle",
        "plan_noscale",
        "plan_equal_split",
        "iome_original",
        "iome_paper",
        "gaussian_private",
    }
    my_colours = [names[n].color for n in mine]
    others = {s.color for s in registry.all_estimators() if s.name not in mine}
    assert len(set(my_colours)) == len(mine) and not set(my_colours) & others
    assert "binary" in names["plan_l1"].data_kinds and "real" not in names["plan_l1"].data_kinds


def test_bad_input() -> None:
    ds = _gauss(100, 3, 0.0, 0)
    x = ds.x.copy()
    x[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        P.plan(x, rho=1.0, bounds=ds.bounds)
    with pytest.raises(ValueError, match="rho"):
        P.plan(ds.x, rho=0.0, bounds=ds.bounds)
    with pytest.raises(ValueError, match="bounds"):
        P.plan(ds.x, rho=1.0, bounds=(1.0, -1.0))
    with pytest.raises(ValueError, match="bounds is required"):
        P.plan(ds.x, rho=1.0)
    with pytest.raises(ValueError, match="sigma"):
        P.plan(ds.x, rho=1.0, bounds=ds.bounds, variances="oracle")
    with pytest.raises(ValueError, match="quantile"):
        P.plan(ds.x, rho=1.0, bounds=ds.bounds, quantile="magic")
    with pytest.raises(ValueError, match="scale_exponent"):
        P.scale_vector(np.ones(3), 2.0, -1.0)
    with pytest.raises(ValueError, match="2-D"):
        P.plan(ds.x[:, 0], rho=1.0, bounds=ds.bounds)
    small = P.plan(ds.x[:20], rho=0.01, bounds=ds.bounds, rng=0)
    assert small.diagnostics.warnings  # k/n > 0.1 is reported


# ---------------------------------------------------------------------------------------------
# variants as specs of the same stages
# ---------------------------------------------------------------------------------------------


def test_each_variant_is_a_spec_of_the_same_stages() -> None:
    import dataclasses
    import inspect

    published = dataclasses.replace(
        P.plan_l2, center_step="paper", radius_step="paper", center_spread=0.1
    )
    assert P.plan_as_published == dataclasses.replace(published, variance_cap_share=0.0)
    assert all(
        isinstance(registry.get(name).func, P.PlanSpec)
        for name in ("plan", "plan_as_published", "plan_l1", "plan_oracle", "plan_noscale")
    )
    ds = _gauss(300, 6, 1.0, 0)
    a = P.plan_equal_split(ds.x, rho=0.5, bounds=ds.bounds, rng=3)
    b = P.plan(ds.x, rho=0.5, bounds=ds.bounds, scale_exponent=0.5, rng=3)
    assert np.array_equal(a.mean, b.mean)
    assert [c.stage for c in a.ledger.charges] == [c.stage for c in b.ledger.charges]
    assert "sigma" in inspect.signature(P.plan_oracle).parameters
    assert "sigma" not in inspect.signature(P.plan_l2).parameters
    assert "variances" not in inspect.signature(P.plan_l2).parameters
    with pytest.raises(TypeError, match="variances"):
        P.plan_l2(ds.x, rho=0.5, bounds=ds.bounds, variances="oracle")


def test_plan_composes_the_stages_in_order() -> None:
    ds = _gauss(300, 6, 1.0, 1)
    est = P.plan(ds.x, rho=0.5, bounds=ds.bounds, center_step="coarse_to_fine", rng=0)
    stages = list(dict.fromkeys(c.stage for c in est.ledger.charges))
    assert stages == [P.STAGE_LABELS[s] for s in ("center", "variance", "radius", "noise")]
    est = P.plan(
        ds.x, rho=0.5, bounds=ds.bounds, rng=0
    )  # CoinPress: the centre after the variances
    stages = list(dict.fromkeys(c.stage for c in est.ledger.charges))
    assert stages == [P.STAGE_LABELS[s] for s in ("variance", "center", "radius", "noise")]
