"""The differencing attack (dpcore.experiments.attack): without noise it recovers the target's
value exactly; against the registered release its success falls as the budget shrinks, over many
seeds, never above what the budget allows, and reaches that bound where the geometry is worst
(the target at one end of the range, the other candidate at the other: distance = sensitivity)."""

import math
import re

import numpy as np
import pytest

from dpcore.data import generate
from dpcore.experiments.attack import (
    ATTACKED,
    attack,
    attack_curve,
    attacked_entry,
    differencing,
    success_sentence,
    tradeoff_points,
)
from dpcore.privacy import Budget
from dpcore.theory.risk import gdp_tradeoff

SEEDS = range(12)


@pytest.mark.parametrize("distribution", ["gaussian", "lognormal", "bounded", "binary_plan"])
def test_exact_attack_recovers_the_value_on_every_seed(distribution):
    worst = 0.0
    for seed in SEEDS:
        data = generate(distribution, 500, 4, 0.25 if "binary" in distribution else 1.0, rng=seed)
        for target in (0, 17, 499):
            out = differencing(data, target=target)
            scale = max(1.0, float(np.abs(data.x[:, 0]).max()))
            worst = max(worst, out.error / scale)
            assert out.value == data.x[target, 0]
    assert worst < 1e-9, f"worst relative error {worst:.2e} over {len(SEEDS)} seeds"


def test_huge_budget_lets_the_attack_win_every_time():
    data = generate("bounded", 1000, 2, 0.0, rng=0)
    run = attack(data, Budget.pure(100.0), draws=500, rng=0)
    assert run.success == 1.0
    assert run.median_miss < 1e-2


def _success(distribution: str, budget: Budget, seed: int):
    data = generate(distribution, 2000, 4, 0.25 if "binary" in distribution else 1.0, rng=seed)
    return attack(data, budget, draws=2000, rng=seed)


@pytest.mark.parametrize("unit", ["rho", "eps"])
def test_success_falls_with_the_budget_at_every_seed(unit):
    """At each seed, success at a large budget > at a middle one > at a tiny one (≈ coin flip),
    and never above the bound by more than 4 standard errors. Worst and median runs reported."""
    budgets = [Budget.from_unit(unit, v) for v in (0.01, 1.0, 10.0)]
    rates = np.array([[_success("bounded", b, seed).success for b in budgets] for seed in SEEDS])
    gaps = np.diff(rates, axis=1)
    report = (
        f"success at {unit} = 0.01, 1, 10: median {np.median(rates, axis=0).round(3)}, "
        f"worst-gap run {rates[np.argmin(gaps.min(axis=1))].round(3)}"
    )
    assert gaps.min() > 0, report
    assert rates[:, 0].max() < 0.56, report  # a tiny budget: close to a coin flip
    assert rates[:, 2].min() > 0.75, report


def _exact_rate(budget: Budget, bound: float) -> float:
    """The attack's exact success when the two candidates are the range's two ends: the Gaussian
    release reaches the bound Φ(μ/2); the Laplace one errs when its noise passes half the range,
    with probability exp(−ε/2)/2 (below the ε-DP bound e^ε/(1 + e^ε), which only randomised
    response reaches)."""
    if budget.notion == "pure":
        return 1.0 - 0.5 * math.exp(-budget.epsilon_value / 2.0)
    return bound


@pytest.mark.parametrize(
    "budget", [Budget.pure(0.5), Budget.pure(2.0), Budget.zcdp(0.125), Budget.zcdp(2.0)]
)
def test_worst_case_geometry_gives_the_exact_rate_and_never_beats_the_bound(budget):
    """Binary data: the target's value and the alternative are 0 and 1, the whole range. The
    success is the closed form within 4 SE at every seed (it fails if the noise scale is off),
    and never beyond the budget's bound by more than 4 SE."""
    worst = 0.0
    for seed in SEEDS:
        run = _success("binary_plan", budget, seed)
        assert {run.value, run.alternative} == {0.0, 1.0}
        exact = _exact_rate(budget, run.bound)
        se = float(np.sqrt(exact * (1 - exact) / (2 * run.draws)))
        off = (run.success - exact) / se
        worst = max(worst, abs(off))
        assert abs(off) < 4, f"seed {seed}: success {run.success:.4f}, exact {exact:.4f}"
        assert run.success <= run.bound + 4 * se
    assert worst < 4, f"worst run {worst:.2f} SE from the closed form over {len(SEEDS)} seeds"


def test_gaussian_attack_points_lie_on_the_gdp_curve():
    data = generate("binary_plan", 2000, 4, 0.25, rng=3)
    run = attack(data, Budget.zcdp(0.5), draws=20_000, rng=3)
    pts = tradeoff_points(run)
    curve = gdp_tradeoff(pts.alpha.to_numpy(), 1.0)
    assert np.all(pts.beta.to_numpy() >= curve - 0.02)
    assert np.abs(pts.beta.to_numpy() - curve).max() < 0.02


def test_entry_follows_the_budget():
    assert attacked_entry(Budget.pure(1.0)) == ATTACKED["eps"]
    assert attacked_entry(Budget.zcdp(1.0)) == ATTACKED["zcdp"]
    assert attacked_entry(Budget.approx(1.0, 1e-6)) == ATTACKED["zcdp"]


def test_curve_is_seeded_and_reproducible():
    data = generate("bounded", 500, 2, 0.0, rng=1)
    a = attack_curve(data, "rho", (0.1, 1.0), draws=300, rng=5)
    b = attack_curve(data, "rho", (0.1, 1.0), draws=300, rng=5)
    assert a.equals(b)
    assert list(a.columns) == ["budget", "success", "bound", "typical_error", "estimator"]


def test_sentence_numbers_are_the_runs():
    run = _success("bounded", Budget.zcdp(0.5), 0)
    text = success_sentence(run)
    assert f"{run.draws:,}" in text
    pcts = [int(p) for p in re.findall(r"(\d+)%", text)]
    assert round(run.bound * 100) in pcts
    assert round(run.success * 100) in pcts or run.success < 0.55


def test_bad_input_is_a_value_error_naming_the_fix():
    data = generate("bounded", 50, 2, 0.0, rng=0)
    with pytest.raises(ValueError, match="target"):
        attack(data, Budget.pure(1.0), target=50)
    with pytest.raises(ValueError, match="lower < upper"):
        attack(data, Budget.pure(1.0), bounds=(1.0, 0.0))
    with pytest.raises(ValueError, match="bounds="):
        attack(data.x, Budget.pure(1.0))
    with pytest.raises(ValueError, match="finite"):
        differencing(np.array([[1.0], [np.nan]]))
