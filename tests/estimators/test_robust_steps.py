"""PLAN's and IOME's robust centre and radius steps (exact ledgers, the log-grid
mechanism's distribution, and the tail over many seeds at cells that blew up before)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import quantiles, registry
from dpcore.data import gaussian
from dpcore.estimators import plan as P
from dpcore.privacy import Budget


def _cell_a(d: int, seed: int) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    ds = gaussian(4000, d, 0.0, mean=0.0, rng=1000 + seed)
    h = 25 * math.sqrt(d)
    return ds.x, ds.true_mean, (np.full(d, -h), np.full(d, h))


# -- the log-grid exponential mechanism -----------------------------------------------------------


def test_log_grid_rank_error_formula() -> None:
    G = quantiles.log_grid_size(1e9, quantiles.LOG_GRID_RATIO)
    assert G == math.ceil(math.log(1e9) / math.log(1.002)) + 1
    assert math.isclose(
        quantiles.log_grid_rank_error(0.5, 0.1), 2 * math.log(G / 0.1) / math.sqrt(8 * 0.5)
    )


def test_log_grid_quantile_samples_the_exponential_mechanism() -> None:
    # Output frequencies match p_k ∝ exp(eps u_k / 2), eps = sqrt(8 rho), u_k = -|#{x <= r_k} - q n|
    # (chi-square at a 1e-4 false-alarm rate); the same test rejects eps off by 30%.
    x = np.random.default_rng(0).exponential(5.0, 40)
    upper, span, ratio, rho, q = 100.0, 1e3, 1.6, 0.02, 0.5
    G = quantiles.log_grid_size(span, ratio)
    grid = upper * ratio ** -np.arange(G, dtype=float)[::-1]
    u = -np.abs(np.searchsorted(np.sort(x), grid, side="right") - q * x.size)
    g = np.random.default_rng(1)
    draws = np.array(
        [
            quantiles.log_grid_quantile(x, q, upper, rho=rho, span=span, ratio=ratio, rng=g)
            for _ in range(6000)
        ]
    )
    obs = np.array([np.sum(np.isclose(draws, r, rtol=1e-12)) for r in grid])
    assert obs.sum() == draws.size  # every output is a grid point

    def pvalue(eps: float) -> float:
        p = np.exp(eps * u / 2 - np.max(eps * u / 2))
        p /= p.sum()
        keep = p * draws.size >= 5
        exp_ = np.append(p[keep] * draws.size, p[~keep].sum() * draws.size)
        ob = np.append(obs[keep], obs[~keep].sum())
        if exp_[-1] == 0:
            exp_, ob = exp_[:-1], ob[:-1]
        return float(stats.chisquare(ob, exp_).pvalue)

    eps = math.sqrt(8 * rho)
    assert pvalue(eps) > 1e-4
    assert pvalue(1.3 * eps) < 1e-4 and pvalue(eps / 1.3) < 1e-4


def test_log_grid_quantile_degrades_in_rank_not_in_scale() -> None:
    # A radius far above the data has the utility of the largest norm: with the clip quantile
    # 1 - k/n, k = sqrt(n) + the rank error, the answer may lose rank but stays near the data even
    # when the grid reaches a million times higher.
    n, rho = 4000, 0.01
    norms = np.random.default_rng(2).normal(50, 3, n).clip(0)
    k = math.sqrt(n) + quantiles.log_grid_rank_error(rho, 0.1)
    out = [quantiles.log_grid_quantile(norms, 1 - k / n, 5e7, rho=rho, rng=s) for s in range(200)]
    assert max(out) < 1.1 * norms.max()


# -- exact ledgers --------------------------------------------------------------------------------


def test_plan_ledger_stages_sum_exactly_with_the_auto_centre_share() -> None:
    x, _, bounds = _cell_a(512, 0)
    rho = 0.125
    est = P.plan(x, rho=rho, bounds=bounds, rng=0)
    fr = est.diagnostics_as(P.PlanDiagnostics).fractions
    need = P.needed_center_share(4000, 512, rho)
    share = min(max(0.0625, need), P.MAX_AUTO_CENTER_SHARE)
    assert share > 0.0625  # this cell needs more than the paper's share
    assert math.isclose(fr["center"], share, rel_tol=1e-15)
    assert math.isclose(fr["noise"], 0.5625 - (share - 0.0625), rel_tol=1e-12)
    assert fr["variance"] == 0.1875 and fr["radius"] == 0.1875
    assert est.ledger.total() == pytest.approx(rho, rel=1e-12)
    by = est.ledger.by_stage()
    assert by[P.STAGE_LABELS["center"]] == pytest.approx(
        est.diagnostics_as(P.PlanDiagnostics).budgets["center"], rel=1e-12
    )
    # an explicit split is used as given
    paper = P.plan(x, rho=rho, bounds=bounds, rng=0, budget_split=P.DEFAULT_SPLIT)
    assert paper.diagnostics_as(
        P.PlanDiagnostics
    ).fractions == P.DEFAULT_SPLIT and paper.ledger.total() == pytest.approx(rho, rel=1e-12)


def test_needed_center_share_formula() -> None:
    n, d, rho = 4000, 1024, 0.125
    expected = (
        2
        * math.log(P.C2F_BINS * d)
        * 3
        * d
        * P.C2F_LEVELS
        / (0.5625 * n * n * P.C2F_HISTOGRAM_SHARE * rho)
    )
    assert math.isclose(P.needed_center_share(n, d, rho), expected)
    assert P.thin_budget_risk(4000, 1024, 1 / 32, 1600.0) is not None  # needs ~0.97 of rho
    assert P.thin_budget_risk(4000, 64, 0.5, 400.0) is None


def test_plan_as_published_ledger_shows_the_true_spend() -> None:
    x, _, bounds = _cell_a(16, 0)
    rho = 0.5
    est = registry.run("plan_as_published", x, Budget.zcdp(rho), bounds=bounds, rng=0)
    rc = 0.0625 * rho
    assert est.ledger.by_stage()[P.STAGE_LABELS["center"]] == pytest.approx(9 * rc, rel=1e-12)
    assert math.isclose(est.ledger.total(), rho + 8 * rc, rel_tol=1e-12)
    assert any("9x" in w for w in est.diagnostics.warnings)


def test_iome_ledgers_are_exact_for_both_radius_steps() -> None:
    x, _, bounds = _cell_a(16, 0)
    for name in ("iome_paper", "iome_as_published"):
        est = registry.run(name, x, Budget.zcdp(0.5), bounds=bounds, rng=0)
        assert est.ledger.total() == pytest.approx(0.5, rel=1e-12), name
        assert est.ledger.by_stage()["clip radius"] == pytest.approx(0.5 * 0.75 * 0.01, rel=1e-12)


def test_coarse_to_fine_median_finds_the_median_at_a_large_budget() -> None:
    x, _, bounds = _cell_a(8, 3)
    med, (a, b) = P.coarse_to_fine_median(x, bounds, rho=1e4, rng=0)
    assert np.all((a <= np.median(x, axis=0)) & (np.median(x, axis=0) <= b))
    np.testing.assert_allclose(med, np.median(x, axis=0), atol=0.02)
    assert np.all(b - a < 2 * 25 * math.sqrt(8))  # the windows zoomed in


# -- tails over many seeds (cells that blew up before the robust steps) --------------------------


def _errors(name: str, d: int, rho: float, seeds: int, **params) -> np.ndarray:
    out = []
    for s in range(seeds):
        x, mu, bounds = _cell_a(d, s)
        est = registry.run(name, x, Budget.zcdp(rho), bounds=bounds, rng=s, **params)
        out.append(float(np.linalg.norm(est.mean - mu)))
    return np.array(out)


@pytest.mark.slow
@pytest.mark.paper
def test_plan_tail_at_a_thin_high_d_cell() -> None:
    # Gaussian A, d = 256, rho = 1/8, 100 seeds. The paper's steps (exponential mechanism over the
    # whole range) put 17 of these runs beyond 3x the median (worst 660x). The first robust pass
    # left one (seed 61: a missed first histogram zoom); the zoom bar 0.6 n and the 0.2% log grid
    # leave none.
    e = _errors("plan", 256, 0.125, 100)
    assert e.max() <= 3 * np.median(e), (np.median(e), np.sort(e)[-5:])
    old = _errors("plan", 256, 0.125, 100, center_step="paper", radius_step="paper")
    assert np.sum(old > 3 * np.median(old)) >= 10


def test_iome_tail_at_a_thin_cell() -> None:
    # Gaussian A, d = 16, rho = 1/2 (the IOME cell), 100 seeds: no run beyond 3x the median;
    # the binary-search radius of the published code fails it.
    e = _errors("iome_paper", 16, 0.5, 100)
    assert e.max() <= 3 * np.median(e), (np.median(e), np.sort(e)[-5:])
    old = _errors("iome_as_published", 16, 0.5, 100)
    assert old.max() > 3 * np.median(old)


@pytest.mark.slow
@pytest.mark.paper
def test_iome_tail_at_d_1024() -> None:
    # Gaussian A, d = 1024, rho = 1/8, 20 seeds: the CoinPress centre keeps every run within 3x the
    # median; the binary-search medians (the first robust pass) put 5 of 20 beyond it (here 12 seeds).
    e = _errors("iome_paper", 1024, 0.125, 20)
    assert e.max() <= 3 * np.median(e), (np.median(e), np.sort(e)[-5:])
    old = _errors("iome_paper", 1024, 0.125, 12, center_step="binary_search")
    assert old.max() > 3 * np.median(old)


@pytest.mark.slow
@pytest.mark.paper
@pytest.mark.parametrize("name", ["plan", "iome_paper"])
def test_tail_at_d_1024_100_seeds(name: str) -> None:
    # The acceptance cell: Gaussian A, d = 1024, rho = 1/8, 100 seeds, no run beyond 3x the
    # median (run by `make paper-grid`).
    e = _errors(name, 1024, 0.125, 100)
    assert e.max() <= 3 * np.median(e), (np.median(e), np.sort(e)[-5:])


# -- CoinPress centre (the robust steps' second pass) --------------------------------------------


def test_coinpress_step_noise_scale_is_exact() -> None:
    # One step, every row inside the ball: c_1 = mean + N(0, s^2 I), s = 2 R / (n sqrt(2 rho)),
    # R = r0 + gamma. With d = 4000 noise draws the std is known to 1.1% (sd of a sample std),
    # so 8% is a 7-sigma tolerance and a 30% error in s fails.
    from dpcore.estimators._localise import coinpress_center

    n, d, rho, r0, gamma = 50, 4000, 0.3, 10.0, 1.0
    y = np.random.default_rng(0).uniform(-0.01, 0.01, (n, d))
    c, info = coinpress_center(y, np.zeros(d), r0, gamma, rho=rho, steps=1, rng=1)
    s = 2 * (r0 + gamma) / (n * math.sqrt(2 * rho))
    assert info["clip_radii"] == [r0 + gamma] and info["budget_per_step"] == rho
    assert abs(np.std(c - y.mean(axis=0)) / s - 1) < 0.08
    # several steps: the budget is split equally, the radii follow the public recursion
    _c3, info3 = coinpress_center(y, np.zeros(d), r0, gamma, rho=rho, steps=3, rng=1)
    assert info3["budget_per_step"] * 3 == pytest.approx(rho, rel=1e-15)
    assert info3["clip_radii"] == [r + gamma for r in info3["radii"][:3]]


def test_private_spread_bounds_the_rows() -> None:
    from dpcore.estimators._localise import chi_tail, private_spread

    x, mu, _ = _cell_a(256, 0)
    gam = private_spread(x, 2 * 25 * 256, rho=1.0, rng=0)
    dist = np.linalg.norm(x - mu, axis=1)
    assert dist.max() <= gam <= 1.3 * chi_tail(256, 0.1 / 4000)  # covers every row, not far above


def test_coinpress_ledgers_are_exact() -> None:
    x, _, bounds = _cell_a(64, 0)
    est = registry.run("iome_paper", x, Budget.zcdp(0.25), bounds=bounds, rng=0)
    assert est.ledger.total() == pytest.approx(0.25, rel=1e-12)
    by = est.ledger.by_stage()
    assert math.isclose(by["centre: l2 spread"], 0.25 * 0.25 * 0.1, rel_tol=1e-12)
    assert math.isclose(
        by["centre: l2 spread"] + by["centre (CoinPress)"], 0.25 * 0.25, rel_tol=1e-12
    )
    est = registry.run("plan", x, Budget.zcdp(0.25), bounds=bounds, rng=0, center_step="coinpress")
    assert est.ledger.total() == pytest.approx(0.25, rel=1e-12)
    assert est.ledger.by_stage()[P.STAGE_LABELS["center"]] == pytest.approx(
        est.diagnostics_as(P.PlanDiagnostics).budgets["center"], rel=1e-12
    )


# -- the private variance cap and the robust Gaussian baseline (the robust steps' third pass) -----


def _cell_c(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray, tuple]:
    ds = gaussian(n, d, 2.0, mean=10.0, rng=3000 + seed)
    h = 50 * d * math.sqrt(float(ds.true_std.max()))
    return ds.x, ds.true_std, (np.full(d, 10 - h), np.full(d, 10 + h))


def test_variance_cap_is_an_upper_bound_and_not_far_above() -> None:
    # variance_cap = r^2 / (2 chi2_1^{-1}(q)), q = 1/2 - e/m: at or above every sigma_i^2 (the theory's
    # claim, probability 1 - beta per run, here 20 runs), and at most what the grid point just above
    # the (1/2 + e/m)-quantile of the pair distances gives (the mechanism's rank error bound).
    # Dropping the factor 2 or the chi-square quantile (or moving q by 30%) breaks one side.
    from statistics import NormalDist

    n, d, rho = 4000, 256, 0.01
    e = quantiles.log_grid_rank_error(rho, 0.1)
    m = n // 2
    q = 0.5 - e / m
    chi2_q = NormalDist().inv_cdf((1 + q) / 2) ** 2
    for seed in range(20):
        x, sigma, bounds = _cell_c(n, d, seed)
        cap = P.variance_cap(x, bounds, rho=rho, rng=seed)
        dist = np.linalg.norm(x[0 : 2 * m : 2] - x[1 : 2 * m : 2], axis=1)
        r_hi = np.quantile(dist, 0.5 + e / m) * quantiles.LOG_GRID_RATIO
        assert sigma.max() ** 2 <= cap <= r_hi**2 / (2 * chi2_q), seed
        assert cap <= 3 * float(np.sum(sigma**2))  # a cap near ||sigma||_2^2, not the range


def test_variance_estimate_respects_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    # The search range tops at k (1 - 2/(9k))^3 max_variance, so no estimate exceeds the cap; on the
    # paper's wide C range at a thin per-coordinate budget, the uncapped medians send some low-variance
    # coordinates 100x above their sigma (the tail of PLAN, C, d = 1024, rho = 1/16). That tail was
    # found at seeds 0-3 with the sorted medians; the envelope medians (same law, other draws) reach
    # 48x at these seeds, so the premise is read on the sorted draw.
    from dpcore.quantiles import exponential

    monkeypatch.setattr(exponential, "ENVELOPE_MEDIANS", False)
    n, d, rho = 10_000, 1024, 0.0625 * 0.1875
    worst_free, worst_capped = 0.0, 0.0
    for seed in range(4):
        x, sigma, bounds = _cell_c(n, d, seed)
        free = np.sqrt(P.variance_estimate(x, bounds, rho=rho, rng=seed))
        cap = P.variance_cap(x, bounds, rho=0.1 * rho, rng=seed)
        capped = P.variance_estimate(x, bounds, rho=0.9 * rho, max_variance=cap, rng=seed)
        assert capped.max() <= cap * (1 + 1e-12)
        worst_free = max(worst_free, float(np.max(free / sigma)))
        worst_capped = max(worst_capped, float(np.max(np.sqrt(capped) / sigma)))
    assert worst_free > 100
    assert worst_capped <= 3 * float(np.linalg.norm(sigma)) / float(sigma.min())


def test_plan_variance_stage_ledger_is_exact_with_the_cap() -> None:
    x, _, bounds = _cell_a(64, 0)
    for rho in (1 / 16, 0.3, 1.0):
        est = P.plan(x, rho=rho, bounds=bounds, rng=0)
        rv = est.diagnostics_as(P.PlanDiagnostics).budgets["variance"]
        rho_cap = rv - (rv - rv * P.VARIANCE_CAP_SHARE)
        assert rho_cap + (rv - rho_cap) == rv  # the two parts of the stage, exactly
        assert math.isclose(rho_cap, 0.1 * rv, rel_tol=1e-12)
        assert est.ledger.by_stage()[P.STAGE_LABELS["variance"]] == pytest.approx(rv, rel=1e-12)
        assert est.ledger.total() == pytest.approx(rho, rel=1e-12)
        assert any("private cap" in c.note for c in est.ledger.charges)
    off = P.plan(x, rho=0.3, bounds=bounds, rng=0, variance_cap_share=0.0)
    assert not any("private cap" in c.note for c in off.ledger.charges)
    with pytest.raises(ValueError, match="variance_cap_share"):
        P.plan(x, rho=0.3, bounds=bounds, rng=0, variance_cap_share=1.5)


def _home_errors(quantile: str, seeds: int) -> np.ndarray:
    # The Home setting: Gaussian, sigma_i^2 = (d/i)^2, n = 4000, d = 128, rho = 1/4, default bounds.
    out = []
    for s in range(seeds):
        ds = gaussian(4000, 128, 2.0, rng=s)
        est = registry.run(
            "gaussian_private", ds.x, Budget.zcdp(0.25), bounds=ds.bounds, rng=s, quantile=quantile
        )
        out.append(float(np.linalg.norm(est.mean - ds.true_mean)))
    return np.array(out)


def test_gaussian_private_tail_at_the_home_setting() -> None:
    # 40 seeds: no run beyond 3x the median (measured worst 1.35x over 60); the binary-search radius
    # (the earlier default) returned C = 72 000 for rows 500 apart at seed 5 (error 729, 160x).
    e = _home_errors("exponential", 40)
    assert e.max() <= 3 * np.median(e), (np.median(e), np.sort(e)[-5:])
    old = _home_errors("binary_search", 40)
    assert old.max() > 3 * np.median(old)


@pytest.mark.slow
@pytest.mark.long  # a long statistical check: `make long` (CI runs it)
def test_gaussian_private_tail_at_a_thin_cell() -> None:
    # Gaussian A, d = 1024, rho = 1/16, 30 seeds (measured worst 1.9x the median with the CoinPress
    # centre; 74x with the coarse-to-fine one, 13x with the binary searches).
    e = _errors("gaussian_private", 1024, 1 / 16, 30)
    assert e.max() <= 3 * np.median(e), (np.median(e), np.sort(e)[-5:])


@pytest.mark.slow
@pytest.mark.paper
def test_plan_tail_at_c_d_1024_rho_1_16() -> None:
    # The cell the second pass left failing (10% of 30 runs beyond 3x the median, worst 3.3x, all
    # from one variance median far above the data); with the variance cap: worst 2.0x over 30.
    out = []
    for s in range(30):
        x, _sigma, bounds = _cell_c(10_000, 1024, s)
        est = registry.run("plan", x, Budget.zcdp(1 / 16), bounds=bounds, rng=s)
        out.append(float(np.linalg.norm(est.mean - 10.0)))
    e = np.array(out)
    assert e.max() <= 3 * np.median(e), (np.median(e), np.sort(e)[-5:])


def _coinpress_reference(y, c0, r0, gamma, *, rho, steps, columns, rng):
    # The loop as it was before the speed-up (a fresh difference array per step), for bit-for-bit
    # comparison.
    from dpcore.estimators._localise import coinpress_radii

    Y = np.asarray(y, dtype=float)
    d, n = Y.shape if columns else Y.shape[::-1]
    radii = coinpress_radii(n, d, r0, gamma, rho, steps, 0.1)
    g = np.random.default_rng(rng)
    c = np.array(c0, dtype=float).reshape(d)
    for t in range(steps):
        R = radii[t] + gamma
        diff = Y - (c[:, None] if columns else c[None, :])
        norms = np.sqrt(
            np.einsum("kj,kj->j", diff, diff) if columns else np.einsum("jk,jk->j", diff, diff)
        )
        f = np.minimum(1.0, R / np.maximum(norms, 1e-300))
        shift = (diff @ f) / n if columns else (f @ diff) / n
        c = c + shift + (2.0 * R / (n * math.sqrt(2.0 * rho / steps))) * g.standard_normal(d)
    return c


@pytest.mark.parametrize("columns", [True, False])
@pytest.mark.parametrize("start", [0.0, 0.5])
def test_coinpress_center_is_bit_for_bit_the_plain_loop(columns: bool, start: float) -> None:
    # The reused buffer and the first step on the rows themselves (start +0.0) change no bit.
    from dpcore.estimators._localise import coinpress_center

    y = np.random.default_rng(5).standard_normal((300, 37)) * 3 + 1
    y[0, :3] = -0.0
    Y = y.T.copy() if columns else y
    c0 = np.full(37, start)
    got, _ = coinpress_center(Y, c0, 50.0, 8.0, rho=0.2, steps=4, columns=columns, rng=9)
    ref = _coinpress_reference(Y, c0, 50.0, 8.0, rho=0.2, steps=4, columns=columns, rng=9)
    assert np.array_equal(got, ref)


@pytest.mark.parametrize("columns", [True, False])
def test_pair_distance_median_sees_the_plain_distances(columns: bool, monkeypatch) -> None:
    # The blocked pair differences give the very distances of the one-array formula (600 pairs: two
    # full blocks of 256 and a partial one).
    from dpcore.estimators import _localise as L

    y = np.random.default_rng(2).standard_normal((1201, 19)) * 7
    seen = {}
    monkeypatch.setattr(
        L.quantiles, "log_grid_quantile", lambda dist, *a, **k: seen.setdefault("d", dist)[0]
    )
    L.pair_distance_median(y.T.copy() if columns else y, 1e6, rho=1.0, columns=columns)
    if columns:
        yt = y.T.copy()  # the (d, n) layout the caller passes
        diff = yt[:, 0:1200:2] - yt[:, 1:1200:2]
        ref = np.sqrt(np.einsum("kj,kj->j", diff, diff))
    else:
        diff = y[0:1200:2] - y[1:1200:2]
        ref = np.sqrt(np.einsum("jk,jk->j", diff, diff))
    assert np.array_equal(seen["d"], ref)


def test_expected_low_variances_formula_and_the_grid_cells_it_flags() -> None:
    n, d, rho = 10_000, 1024, 1 / 16
    eps = math.sqrt(8 * 0.1875 * (1 - P.VARIANCE_CAP_SHARE) * rho / d)
    m = n // 2
    expected = d * 23.0 * math.exp(-eps * m / 4) * m * 0.214 * eps / 4
    assert math.isclose(P.expected_low_variances(n, d, rho), expected, rel_tol=1e-12)
    # the one B/C cell of the paper's grid with a tail from the variances is flagged ...
    risk = P.thin_budget_risk(n, d, rho, 3.2e6)
    assert risk is not None and "variance estimates are thin" in risk
    # ... and no other B/C cell (n = 10^4; d = 512 for B, d <= 1024 for C), nor the Home setting
    for dd, rr in [(1024, 1 / 8)] + [(512, r) for r in (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0)]:
        assert P.thin_budget_risk(10_000, dd, rr, 1e6) is None, (dd, rr)
    assert P.thin_budget_risk(4000, 128, 0.25, 12_800.0) is None
