"""The binary product estimator's privacy: empirical checks on worst-case neighbours (S2 of
specs/binary_product.md §7; pure DP: probabilities compared directly) and the stage functions
run_pde calls, each drawn and charged by a mechanism."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import registry
from dpcore.data.binary import profile, sample_binary_product
from dpcore.estimators.binary_baselines import (
    klsu_style_zcdp,
    naive_laplace,
    truncated_laplace,
)
from dpcore.estimators.binary_product import (
    _clipped_mean,
    pure_dp_pde,
    tmean_l1_sensitivity,
    tmean_l2_sensitivity,
)


def _data(prof: str, d: int, n: int, seed: int, **kw):
    p = profile(prof, d, rng=seed)
    return p, sample_binary_product(p, n, rng=seed + 1000, **kw)


# ------------------------------------------------------------------------------------------
# S2: empirical privacy checks on worst-case neighbours (pure DP: compare probabilities directly)


def _orthant_log_ratio(fx, fxp, scale, draws, rng):
    """log P_X(E)/P_X'(E) for the orthant E = {y_j >= f_j(X) where Δ_j > 0, <= where Δ_j < 0},
    estimated from `draws` Laplace outputs under each dataset; returns (estimate, its SE)."""
    delta = fx - fxp
    s = np.sign(delta)
    g = np.random.default_rng(rng)
    y_x = fx + g.laplace(0, scale, (draws, fx.size))
    y_xp = fxp + g.laplace(0, scale, (draws, fx.size))
    ev = lambda y: np.all((s == 0) | (s * (y - fx) >= 0), axis=1)  # noqa: E731
    kx, kxp = ev(y_x).sum(), ev(y_xp).sum()
    return math.log(kx / kxp), math.sqrt(1 / kx + 1 / kxp)


@pytest.mark.slow
def test_s2_privacy_audit_truncated_mean_primitive():
    # spec §7 S2: k = 8, B = 2, m = 5; one row 1_{1..4} against 1_{5..8}; the rest zero.
    k, B, m, eps = 8, 2.0, 5, 1.0
    X = np.zeros((m, k))
    Xp = X.copy()
    X[0, :4] = 1
    Xp[0, 4:] = 1
    ones, zero = np.ones(k), np.zeros(k)
    fx, _ = _clipped_mean(X, ones, B, ones, zero)
    fxp, _ = _clipped_mean(Xp, ones, B, ones, zero)
    sens = tmean_l1_sensitivity(B, k, m)
    assert np.abs(fx - fxp).sum() == pytest.approx(sens)  # the worst case attains the bound
    lr, se = _orthant_log_ratio(fx, fxp, sens / eps, 1_000_000, 0)
    # exact ratio e^{||Δ||_1/b} = e^eps; P_X(E) = 2^-8, so ~3900 and ~1440 events: SE ≈ 0.031
    assert abs(lr - eps) < 4 * se
    assert lr <= eps + 4 * se
    # the paper's scale B/(m eps) (sensitivity B/m) leaks e^{2 eps}: the same audit catches it
    lr_bug, se_bug = _orthant_log_ratio(fx, fxp, B / m / eps, 1_000_000, 1)
    assert lr_bug > eps + 10 * se_bug and abs(lr_bug - 2 * eps) < 4 * se_bug


@pytest.mark.parametrize("stage", ["flip", "round 1", "heavy", "final"])
def test_s2_pipeline_worst_case_neighbours_each_stage(stage):
    # Substitute one row, placed (shuffle=False) in the block of `stage`, by its worst case (disjoint
    # supports of weight >= B). With the same seed the earlier releases are identical, and the
    # changed stage's noiseless statistic moves by at most its sensitivity, so the log-likelihood
    # ratio of its Laplace output is at most ||Δ||_1 / b <= eps; later releases are post-processing.
    n, d, eps = 4000, 16, 1.0
    p = np.full(d, 0.01)
    p[:2] = 0.3
    X = sample_binary_product(p, n, rng=21, as_sparse=False)
    base = pure_dp_pde(X, epsilon=eps, rng=22, shuffle=False)
    rows = base.diagnostics.row_sets[stage]
    i = int(rows[0])
    Y = X.copy()
    X2 = X.copy()
    X2[i] = 0
    X2[i, : d // 2] = 1
    Y[i] = 0
    Y[i, d // 2 :] = 1
    a = pure_dp_pde(X2, epsilon=eps, rng=22, shuffle=False)
    b = pure_dp_pde(Y, epsilon=eps, rng=22, shuffle=False)
    sa = {s["stage"]: s for s in a.diagnostics.stages}
    if stage == "flip":
        diff = np.abs(a.diagnostics.flip_estimate - b.diagnostics.flip_estimate).sum()
    elif stage.startswith("round"):
        ra, rb = a.diagnostics.rounds[0], b.diagnostics.rounds[0]
        diff = np.abs(ra["noiseless"] - rb["noiseless"]).sum()
    else:
        assert np.array_equal(a.diagnostics.group, b.diagnostics.group)
        na, nb = a.diagnostics.noiseless_mean, b.diagnostics.noiseless_mean
        sel = ~a.diagnostics.light if stage == "heavy" else a.diagnostics.light
        diff = np.abs(na[sel] - nb[sel]).sum()
        if stage == "heavy":  # released g = w * q: undo the rescaling
            w = 1 / np.sqrt(np.array([2.0**-g for g in a.diagnostics.group[sel]]))
            diff = np.abs((na[sel] - nb[sel]) * w).sum()
    assert diff > 0
    assert diff <= sa[stage]["sensitivity"] * (1 + 1e-9)
    assert diff / sa[stage]["scale"] <= eps * (1 + 1e-9)


def test_s2_naive_and_truncated_worst_case():
    n, d, eps = 1000, 10, 1.0
    X = np.zeros((n, d))
    Y = X.copy()
    Y[0] = 1
    a, b = naive_laplace(X, epsilon=eps, rng=0), naive_laplace(Y, epsilon=eps, rng=0)
    diff = np.abs(a.diagnostics.noiseless_mean - b.diagnostics.noiseless_mean).sum()
    assert diff == pytest.approx(d / n) and diff / a.diagnostics.scale == pytest.approx(eps)
    lr, se = _orthant_log_ratio(
        a.diagnostics.noiseless_mean, b.diagnostics.noiseless_mean, a.diagnostics.scale, 400_000, 3
    )
    assert abs(lr - eps) < 4 * se
    # B2 truncated mean: the row in the mean block, worst case two disjoint heavy rows
    Z = np.zeros((n, d))
    a = truncated_laplace(Z, epsilon=eps, rng=0)
    i = int(
        np.flatnonzero(~np.isin(np.arange(n), np.random.default_rng(0).permutation(n)[:100]))[0]
    )
    Z1, Z2 = Z.copy(), Z.copy()
    Z1[i, :5] = 1
    Z2[i, 5:] = 1
    a, b = truncated_laplace(Z1, epsilon=eps, rng=0), truncated_laplace(Z2, epsilon=eps, rng=0)
    diff = np.abs(a.diagnostics.noiseless_mean - b.diagnostics.noiseless_mean).sum()
    assert 0 < diff <= a.diagnostics.scale * eps * (1 + 1e-9)


# ------------------------------------------------------------------------------------------------
# the stage functions run_pde calls


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
def test_truncated_mean_release_stage_sensitivity(noise: str) -> None:
    """Substituting one row moves the truncated mean by at most its sensitivity (ℓ1 for Laplace, ℓ2
    for Gaussian; spec §2.1), and the noise scale is that sensitivity over ε (or /√(2ρ))."""
    from dpcore.estimators.binary_product import StageMechanism, truncated_mean_release

    g = np.random.default_rng(3)
    m, d, budget, B = 200, 40, 0.8, 3.0
    block = (g.random((m, d)) < 0.3).astype(float)
    worst = block.copy()
    worst[11] = 1.0  # the heaviest row: clipped to the ball of radius B
    coords = np.zeros(d, dtype=bool)
    coords[::2] = True
    sign, flipped = np.ones(d), np.zeros(d, dtype=bool)
    mech = StageMechanism(noise, budget)
    a = truncated_mean_release(block, coords, B, sign, flipped, mech, np.random.default_rng(0))
    b = truncated_mean_release(worst, coords, B, sign, flipped, mech, np.random.default_rng(0))
    k = int(coords.sum())
    if noise == "laplace":
        assert a.sensitivity == tmean_l1_sensitivity(B, k, m) == min(2 * B, k) / m
        assert np.abs(a.noiseless - b.noiseless).sum() <= a.sensitivity * (1 + 1e-12)
        assert a.scale == pytest.approx(a.sensitivity / budget, rel=1e-15)
    else:
        assert a.sensitivity == tmean_l2_sensitivity(B, k, m)
        assert np.linalg.norm(a.noiseless - b.noiseless) <= a.sensitivity * (1 + 1e-12)
        assert a.scale == pytest.approx(a.sensitivity / math.sqrt(2 * budget), rel=1e-15)
    assert b.clipped[11] and a.noisy.shape == (k,)


def test_run_pde_calls_the_shared_stage_functions(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pure_dp_pde`` releases every truncated mean through :func:`truncated_mean_release` (the
    function the privacy test above exercises), once per sorting round and once for the final stage."""
    import dpcore.estimators.binary_product as BP

    seen: list[int] = []
    real = BP.truncated_mean_release

    def spy(block, coords, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        seen.append(int(coords.sum()))
        return real(block, coords, *args, **kwargs)

    monkeypatch.setattr(BP.stages, "truncated_mean_release", spy)  # where the stages call it
    X = (np.random.default_rng(4).random((4000, 64)) < np.linspace(0.01, 0.6, 64)).astype(float)
    est = BP.pure_dp_pde(X, epsilon=1.0, rng=0)
    dg = est.diagnostics_as(BP.BinaryProductDiagnostics)
    assert len(seen) == len(dg.rounds) + int(dg.light.any())
    assert seen[: len(dg.rounds)] == [row["size"] for row in dg.rounds]


@pytest.mark.parametrize(
    "name", sorted(s.name for s in registry.all_estimators() if s.family == "binary product")
)
def test_every_stage_drawn_and_charged_by_a_mechanism(name):
    """White-box calibration: every release's noise is what its sensitivity and budget require,
    nothing is drawn outside a mechanism or a stage, and the ledger adds up to the budget."""
    from dpcore.audit import calibration, problems

    assert problems(calibration(name)) == []


@pytest.mark.parametrize(
    ("func", "kw", "stages"),
    [
        (pure_dp_pde, {"epsilon": 0.8}, {"flip", "round 1", "final"}),
        (klsu_style_zcdp, {"rho": 0.3, "flip": False, "recycle": False}, {"round 1", "final"}),
        (truncated_laplace, {"epsilon": 0.8}, {"row weight", "truncated mean"}),
    ],
)
def test_parallel_composition_charges_once(func, kw, stages):
    """Disjoint-row stages: one "parallel composition" line at the budget, first; every stage's own
    mechanism line adds 0 and is calibrated to the full budget on its rows (ratio 1)."""
    _p, X = _data("skewed", 64, 20_000, 4)
    est = func(X, rng=0, **kw)
    first, *rest = est.ledger.charges
    budget = next(iter(kw.values()))
    assert (first.stage, first.amount, first.mechanism) == (
        "parallel composition",
        budget,
        "parallel composition",
    )
    assert stages <= {c.stage for c in rest}
    for c in rest:
        assert c.amount == 0.0 and c.ratio == pytest.approx(1.0, rel=1e-12)
        assert "adds 0: parallel composition" in c.note
