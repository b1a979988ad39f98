"""PMWM in d dimensions and in the registry, its stage functions, and the noise interface
(every draw by dpcore.mechanisms, every ledger line written by it).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import quantiles, registry
from dpcore.data import generate
from dpcore.estimators.winsorized import winsorized_mean, winsorized_mean_zcdp
from dpcore.estimators.winsorized_baselines import (
    clipped_mean_box_zcdp,
    clipped_mean_laplace,
    widened_winsorized_mean,
)
from dpcore.privacy import Budget
from tests.estimators._winsorized_data import BOUNDS

# ------------------------------------------------------------------------------------------------
# d dimensions and the registry


def test_registered_and_runs_columnwise() -> None:
    names = {s.name for s in registry.applicable("real", d=8)}
    assert {"pmwm", "pmwm_zcdp", "clipped_laplace", "clipped_box_zcdp", "wwm_smith"} <= names
    assert {"pmwm", "pmwm_zcdp"} <= {s.name for s in registry.applicable("bounded", d=1)}
    assert registry.get("pmwm").notion == "pure" and registry.get("pmwm_zcdp").notion == "zcdp"
    ds = generate("gaussian", 4000, 8, 0.0, rng=0)
    for name in ("pmwm", "pmwm_zcdp"):
        est = registry.run(name, ds, Budget.zcdp(0.5), rng=1)
        assert est.mean.shape == (8,)
        assert est.ledger.total() == pytest.approx(est.conversion.value, rel=1e-15)
        assert np.linalg.norm(est.mean - ds.true_mean) < 0.5
        assert est.diagnostics.clipped.shape == (4000, 8)


def test_joint_gaussian_step_beats_per_coordinate_when_widths_differ() -> None:
    # spec §7.3: one Gaussian on the joint l2 sensitivity has total variance
    # d ||w||^2 /(n^2 2 rho3) vs sum_r d w_r^2/(n^2 2 rho3) ... equal; it is the *max* that differs:
    # per-coordinate sd is sqrt(d) w_r, joint sd is ||w||; joint wins on the wide coordinate.
    x = np.random.default_rng(0).normal(0, [0.1, 10.0], (2000, 2))
    j = winsorized_mean_zcdp(x, rho=1.0, bounds=BOUNDS, rng=1)
    p = winsorized_mean_zcdp(x, rho=1.0, bounds=BOUNDS, mean_noise="per_coordinate", rng=1)
    assert j.diagnostics.noise_std[1] < p.diagnostics.noise_std[1]
    assert j.diagnostics.noise_std[0] > p.diagnostics.noise_std[0]


def test_baselines_exact_scales_and_ledgers() -> None:
    x = np.random.default_rng(0).normal(5, 1, (500, 2))
    e = clipped_mean_laplace(x, epsilon=2.0, bounds=BOUNDS, rng=0)
    assert e.ledger.total() == 2.0
    assert e.diagnostics.noise_scale == pytest.approx(np.full(2, 2 * 100 / (500 * 2.0)))
    z = clipped_mean_box_zcdp(x, rho=0.5, bounds=BOUNDS, rng=0)
    assert z.ledger.total() == 0.5
    assert z.diagnostics.noise_std == pytest.approx(np.full(2, math.sqrt(2) * 100 / 500))
    w = widened_winsorized_mean(x, epsilon=1.0, bounds=BOUNDS, rng=0)
    assert w.ledger.total() == 1.0
    lo, hi = w.diagnostics.clip_interval
    assert w.diagnostics.noise_scale == pytest.approx(2 * (hi - lo) / (500 * 0.5))


def test_wwm_is_far_noisier_than_pmwm() -> None:
    # Appendix A.1 finding: WWM's widened interval (rad = n^0.433) makes its noise huge.
    R = 300
    x = np.random.default_rng(4).normal(5, 1, (1000, R))
    w = widened_winsorized_mean(x, epsilon=1.0 * R, bounds=BOUNDS, rng=5).mean
    p = winsorized_mean(x, epsilon=1.0 * R, bounds=BOUNDS, rng=6).mean
    assert np.mean((w - 5) ** 2) > 100 * np.mean((p - 5) ** 2)


def test_clipped_baselines_spend_exactly_their_budget_on_worst_case_neighbours() -> None:
    """Worst-case replace-one neighbours for a clipped mean: one row moves from the lower bound
    to the upper bound in every coordinate. The noiseless mean moves by exactly (b - a)/n per
    coordinate, so the Laplace release's privacy loss |Δ|_1 / scale equals epsilon, and the Gaussian
    release's (|Δ|_2 / std)^2 / 2 equals rho: calibrated exactly, no slack and no shortfall."""
    rng = np.random.default_rng(5)
    a, b = np.array([-50.0, 0.0, 10.0]), np.array([50.0, 5.0, 30.0])
    x = rng.uniform(a, b, size=(200, 3))
    x[0], x2 = a, x.copy()
    x2[0] = b
    lap, lap2 = (clipped_mean_laplace(v, epsilon=0.7, bounds=(a, b), rng=0) for v in (x, x2))
    delta = lap2.diagnostics.noiseless_mean - lap.diagnostics.noiseless_mean
    np.testing.assert_allclose(delta, (b - a) / 200)
    assert np.sum(np.abs(delta) / lap.diagnostics.noise_scale) == pytest.approx(0.7)
    g, g2 = (clipped_mean_box_zcdp(v, rho=0.3, bounds=(a, b), rng=0) for v in (x, x2))
    dg = g2.diagnostics.noiseless_mean - g.diagnostics.noiseless_mean
    assert 0.5 * np.sum((dg / g.diagnostics.noise_std) ** 2) == pytest.approx(0.3)


def test_zcdp_walk_is_the_pure_walk_at_eps_sqrt_2rho() -> None:
    """pmwm_zcdp runs each quantile walk as the pure AboveThreshold walk at
    eps_w = sqrt(2 rho_w / d) per coordinate (eps-DP => eps^2/2-zCDP, valid for any walk length)
    instead of the Gaussian walk resting on the paper's Lemma D.1. Exact: the per-coordinate
    epsilons, the ledger, and the intervals equal two pure unbounded_quantile calls on the same
    random stream."""
    from dpcore.estimators.winsorized import walk_epsilons

    x = np.random.default_rng(0).normal(3, 1, (500, 2))
    rho, d = 0.4, 2
    est = winsorized_mean_zcdp(x, rho=rho, bounds=(-100, 100), rng=11)
    part = 0.25 * rho / 2  # threshold and query parts of one quantile call (default split)
    e_t, e_q = est.diagnostics.walk_epsilon_per_coordinate
    assert (e_t, e_q) == walk_epsilons(part, part, d)
    assert (e_t + e_q) ** 2 / 2 == pytest.approx(2 * part / d, rel=1e-14)
    assert e_t == pytest.approx(e_q, rel=1e-15)
    assert est.ledger.total() == pytest.approx(rho, rel=1e-15)
    assert est.diagnostics.walk == "pure"
    g = np.random.default_rng(11)
    tau = est.diagnostics.tau
    kw = {"epsilon_threshold": e_t * d, "epsilon_query": e_q * d, "beta": 1.001, "rng": g}
    up = quantiles.unbounded_quantile(x, 1 - tau, (-100, 100), **kw)
    lo = quantiles.unbounded_quantile(x, tau, (-100, 100), **kw)
    L_raw, U_raw = est.diagnostics.raw_interval
    np.testing.assert_array_equal(U_raw, np.clip(up.value, -100, 100))
    np.testing.assert_array_equal(L_raw, np.clip(lo.value, -100, 100))
    # the paper's Gaussian walk stays available, labelled, for reproducing its tables
    gauss = _paper_walk(x, rho=rho, bounds=(-100, 100), rng=11)
    assert gauss.diagnostics.walk == "gaussian"
    assert "Lemma D.1" in gauss.ledger.charges[0].note
    assert registry.get("pmwm_zcdp").params.get("walk", "pure") == "pure"


# ------------------------------------------------------------------------------------------------
# the stage functions _pmwm calls: privacy of the mean stage on its own, and the entry
# calls exactly these functions (no copy)


@pytest.mark.parametrize(
    ("notion", "mean_noise"), [("pure", "joint"), ("zcdp", "joint"), ("zcdp", "per_coordinate")]
)
def test_noisy_winsorized_mean_stage_sensitivity_and_scale(notion: str, mean_noise: str) -> None:
    """Swapping one row moves the winsorized mean by at most (U - L)/n per coordinate, and the noise
    is calibrated to exactly that (spec §2.1, §7): a scale off by 30% fails the equalities."""
    from dpcore.estimators.winsorized import noisy_winsorized_mean
    from dpcore.privacy import Ledger

    g = np.random.default_rng(5)
    n, d, budget = 400, 3, 0.6
    X = g.normal(size=(n, d))
    L, U = np.array([-1.0, -0.5, -2.0]), np.array([1.0, 0.5, 2.0])
    X2 = X.copy()
    X2[7] = [50.0, -50.0, 50.0]  # the worst swap: from inside to beyond the interval
    ledger = Ledger(notion)
    a = noisy_winsorized_mean(
        X,
        L,
        U,
        notion=notion,
        mean_noise=mean_noise,
        budget=budget,
        ledger=ledger,
        rng=np.random.default_rng(0),
    )
    b = noisy_winsorized_mean(
        X2,
        L,
        U,
        notion=notion,
        mean_noise=mean_noise,
        budget=budget,
        ledger=Ledger(notion),
        rng=np.random.default_rng(0),
    )
    width = U - L
    assert np.all(np.abs(a.noiseless - b.noiseless) <= width / n * (1 + 1e-12))
    assert ledger.total() == budget  # one charge of the whole mean part
    if notion == "pure":
        np.testing.assert_allclose(a.scale, d * width / (n * budget), rtol=1e-15)
        np.testing.assert_allclose(a.noise_std, math.sqrt(2.0) * a.scale, rtol=1e-15)
    elif mean_noise == "joint":
        np.testing.assert_allclose(
            a.scale, np.linalg.norm(width) / n / math.sqrt(2 * budget), rtol=1e-15
        )
    else:
        np.testing.assert_allclose(a.scale, width / n / math.sqrt(2 * budget / d), rtol=1e-15)
    # the same seed adds the same noise: the release differs only by the noiseless mean
    np.testing.assert_allclose(a.mean - a.noiseless, b.mean - b.noiseless, rtol=0, atol=1e-12)


def test_pmwm_calls_the_shared_stage_functions(monkeypatch: pytest.MonkeyPatch) -> None:
    """``winsorized_mean`` runs the stage functions the privacy tests exercise (not a copy of them)."""
    import dpcore.estimators.winsorized as W

    calls: list[str] = []
    for name in ("walk_budgets", "private_interval", "noisy_winsorized_mean"):
        real = getattr(W, name)

        def spy(*args, _real=real, _name=name, **kwargs):  # noqa: ANN002, ANN003, ANN202
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(W, name, spy)
    x = np.random.default_rng(1).normal(size=300)
    est = W.winsorized_mean(x, epsilon=1.0, bounds=(-10, 10), rng=0)
    assert calls == ["walk_budgets", "private_interval", "noisy_winsorized_mean"]
    assert est.ledger.total() == pytest.approx(1.0, rel=1e-15)


# ------------------------------------------------------------------------------------------------
# the noise interface: every draw by dpcore.mechanisms, every ledger line written by it


@pytest.mark.parametrize(
    ("name", "public"),
    [
        ("pmwm", {}),
        ("pmwm", {"split": (0.1, 0.3, 0.6), "beta": 1.01, "eta": 0.1, "c": 3.0}),
        ("pmwm_zcdp", {}),
        ("pmwm_zcdp", {"mean_noise": "per_coordinate", "split": (0.2, 0.2, 0.6)}),
        ("clipped_laplace", {}),
        ("clipped_box_zcdp", {}),
        ("wwm_smith", {}),
        ("wwm_smith", {"widen": 2.0}),
    ],
)
def test_white_box_calibration(name: str, public: dict) -> None:
    """Every stage's noise is exactly what its charge requires, no noise is drawn outside a
    mechanism, and the ledger adds up to the declared budget."""
    from dpcore.audit import calibration, problems

    tab = calibration(name, **public)
    assert problems(tab) == []
    assert "unledgered" not in set(tab["stage"])


def test_pmwm_zcdp_walk_lines_are_the_pure_walk_converted_as_a_whole() -> None:
    """Each walk's two lines add up to d (eps_T + eps_Q)^2 / 2 = rho1/2 + rho2/2, split eps_T : eps_Q
    = rho1 : rho2, the same as the walk's budget parts."""
    x = np.random.default_rng(2).normal(size=(400, 3))
    rho, split = 0.6, (0.1, 0.3, 0.6)
    est = winsorized_mean_zcdp(x, rho=rho, bounds=(-20, 20), split=split, rng=0)
    e_t, e_q = est.diagnostics.walk_epsilon_per_coordinate
    by = est.ledger.by_stage()
    for end in ("upper", "lower"):
        t, q = by[f"{end} quantile: threshold"], by[f"{end} quantile: queries"]
        assert t + q == pytest.approx(3 * (e_t + e_q) ** 2 / 2, rel=1e-14)
        assert t == pytest.approx(split[0] * rho / 2, rel=1e-14)
        assert q == pytest.approx(split[1] * rho / 2, rel=1e-14)
    assert {c.mechanism for c in est.ledger.charges} == {"above_threshold", "gaussian"}


def test_gaussian_walk_is_labelled_unproven() -> None:
    x = np.random.default_rng(0).normal(size=300)
    est = _paper_walk(x, rho=0.5, bounds=(-10, 10), rng=0)
    walk_lines = [c for c in est.ledger.charges if "quantile" in c.stage]
    assert len(walk_lines) == 4
    assert all("unproven accounting" in c.note for c in walk_lines)
    with pytest.raises(ValueError, match="walk"):
        registry.run("pmwm_zcdp", x, Budget.zcdp(0.5), rng=0, bounds=(-10, 10), walk="gaussian")
    with pytest.raises(ValueError, match="walk"):  # a direct call is held to the same lock
        winsorized_mean_zcdp(x, rho=0.5, bounds=(-10, 10), walk="gaussian", rng=0)


def test_the_registered_walk_is_accepted_without_a_scan_of_the_registry(monkeypatch) -> None:
    """``check_direct_call`` tries the function's own entries first: the registered ``pmwm_zcdp``
    locks the record's own walk, so a run with it is accepted there, without comparing every
    other entry; any other walk is still held to the lock."""
    import dpcore.estimate as E

    compared: list[int] = []
    same_kind = E._same_kind

    def spy(f, g):  # noqa: ANN001, ANN202
        compared.append(1)
        return same_kind(f, g)

    monkeypatch.setattr(E, "_same_kind", spy)
    x = np.random.default_rng(0).normal(size=(200, 3))
    winsorized_mean_zcdp(x, rho=0.5, bounds=(-10, 10), rng=0)
    registry.run("pmwm_zcdp", x, Budget.zcdp(0.5), rng=0, bounds=(-10, 10))
    assert compared == []
    with pytest.raises(ValueError, match="walk"):
        winsorized_mean_zcdp(x, rho=0.5, bounds=(-10, 10), walk="gaussian", rng=0)
    assert compared  # the refusal still asks every entry of its kind


def _paper_walk(x, *, rho, bounds, rng):
    """The paper's Gaussian walk (unproven accounting), reachable only through the internal
    ``_pmwm``: the function and the registry refuse it."""
    from dpcore.estimators import winsorized as W

    return W._pmwm(
        x,
        notion="zcdp",
        budget=rho,
        bounds=bounds,
        c=10.0,
        eta=0.0,
        beta=1.001,
        split=W.DEFAULT_SPLIT,
        mean_noise="joint",
        walk="gaussian",
        rng=rng,
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"beta": math.inf},
        {"beta": math.nan},
        {"eta": math.nan},
        {"c": math.inf},
        {"bounds": (-math.inf, 10.0)},
        {"bounds": (0.0, math.nan)},
        {"split": (math.nan, 0.5, 0.5)},
    ],
)
def test_non_finite_public_inputs_raise_before_any_draw(kwargs: dict) -> None:
    from dpcore import mechanisms

    draws: list[str] = []
    x = np.random.default_rng(0).normal(size=(200, 2))
    args = {"bounds": (-10.0, 10.0), **kwargs}
    with mechanisms.observing(lambda kind, stage, variates: draws.append(kind)):
        for func, budget in (
            (winsorized_mean, {"epsilon": 1.0}),
            (winsorized_mean_zcdp, {"rho": 1.0}),
        ):
            with pytest.raises(ValueError):
                func(x, rng=0, **budget, **args)
    assert draws == []


def test_zero_width_coordinate_gets_no_noise_and_the_budget_goes_to_the_others() -> None:
    from dpcore.estimators.winsorized import noisy_winsorized_mean
    from dpcore.privacy import Ledger

    X = np.random.default_rng(1).normal(size=(100, 3))
    L, U = np.array([-1.0, 0.5, -2.0]), np.array([1.0, 0.5, 2.0])
    for notion, mean_noise in (("pure", "joint"), ("zcdp", "joint"), ("zcdp", "per_coordinate")):
        led = Ledger(notion)
        out = noisy_winsorized_mean(
            X, L, U, notion=notion, mean_noise=mean_noise, budget=0.4, ledger=led, rng=0
        )
        assert out.mean[1] == 0.5 and out.scale[1] == 0.0
        assert led.total() == pytest.approx(0.4, rel=1e-15)
        assert [c.ratio for c in led.charges] == [pytest.approx(1.0, rel=1e-12)]
