"""dpcore.remeasure: inverse-variance combination of releases and how their budgets compose.

The combined variance is 1 / sum(1 / v_i) exactly, and over many seeded simulations the combined
estimate's empirical variance matches it (and its 95% half-width covers 95% of runs); equal
weights, the mistake the test guards against, give a visibly larger variance. Each release's stated
variance agrees with its stated accuracy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import Budget, registry
from dpcore.release import FACTOR, Odometer, Release, release
from dpcore.remeasure import combine, composition, inverse_variance

X = np.random.default_rng(3).random((60, 2))
BOUNDS = (0.0, 1.0)
#: Simulated pairs of releases per block, and blocks (the worst block is reported).
RUNS, BLOCKS = 500, 2


def test_inverse_variance_formula_on_random_inputs() -> None:
    g = np.random.default_rng(0)
    m, v = g.normal(size=(4, 5)), g.uniform(0.1, 3.0, size=(4, 5))
    mean, var = inverse_variance(m, v)
    assert var == pytest.approx(1.0 / (1.0 / v).sum(axis=0), rel=1e-12)
    assert mean == pytest.approx((m / v).sum(axis=0) * var, rel=1e-12)
    assert np.all(var <= v.min(axis=0))  # never worse than the best single estimate


@pytest.mark.parametrize(
    ("means", "variances", "words"),
    [
        (np.zeros((2, 2)), np.array([[1.0, 1.0], [0.0, 1.0]]), "positive"),
        (np.zeros((2, 2)), np.ones((2, 3)), "same shape"),
        (np.array([[np.nan, 0.0]]), np.ones((1, 2)), "finite"),
    ],
)
def test_bad_variances_are_refused(means, variances, words) -> None:
    with pytest.raises(ValueError, match=words):
        inverse_variance(means, variances)


def _simulated(name: str, budget: Budget, seed: int) -> Release:
    """A seeded simulation of a one-stage release: its mean and its exact noise variance."""
    est = registry.run(name, X, budget, rng=seed, bounds=BOUNDS)
    var = np.asarray(est.diagnostics.noise_std, dtype=float) ** 2 * np.ones(X.shape[1])
    kind = "laplace" if budget.notion == "pure" else "gaussian"
    g = {"epsilon": budget.epsilon_value} if budget.notion == "pure" else {"rho": budget.rho_value}
    cert = {
        "columns": ["a", "b"],
        "guarantee": {**g, "budget_given": str(budget)},
        "neighbouring": {"relation": "replace-one", "words": "replacing one row"},
    }
    return Release(np.asarray(est.mean, dtype=float), np.zeros(2), cert, var, kind)


@pytest.mark.parametrize(
    ("name", "budgets"),
    [
        ("clipped_laplace", (Budget.pure(0.2), Budget.pure(0.6))),
        ("clipped_box_zcdp", (Budget.zcdp(0.01), Budget.zcdp(0.05), Budget.zcdp(0.02))),
    ],
)
@pytest.mark.long  # a long statistical check: `make long` (CI runs it)
def test_combined_variance_matches_simulation(name: str, budgets: tuple[Budget, ...]) -> None:
    clean = registry.run(name, X, budgets[0], rng=0, bounds=BOUNDS).diagnostics.noiseless_mean
    ratios, covered, equal_ratios = [], [], []
    for block in range(BLOCKS):
        combined, equal = [], []
        for r in range(RUNS):
            rel = [_simulated(name, b, 10**6 * block + 10 * r + i) for i, b in enumerate(budgets)]
            c = combine(rel)
            combined.append(c.mean)
            equal.append(np.mean([x.mean for x in rel], axis=0))
        err = np.array(combined) - clean
        ratios.append(err.var(axis=0) / c.variance)
        covered.append(np.mean(np.abs(err) < c.accuracy))
        equal_ratios.append((np.array(equal) - clean).var(axis=0) / c.variance)
    worst = max(np.max(np.abs(np.log(r))) for r in ratios)
    # sd of a variance estimate from 500 runs: about sqrt(5/500) = 10% (Laplace kurtosis)
    assert worst < 0.3, f"empirical / stated variance: median {np.median(ratios):.3f}, {ratios}"
    assert 0.92 < min(covered) and max(covered) < 0.98, covered
    assert min(np.min(r) for r in equal_ratios) > 1.4, "equal weights should be visibly worse"


def test_one_release_keeps_its_own_exact_statement() -> None:
    out = release("clipped_laplace", X, Budget.pure(0.5), n_public=True, bounds=BOUNDS)
    assert out.noise == "laplace"
    b = out.accuracy / FACTOR["laplace"]  # the Laplace scale behind the half-width
    assert out.variance == pytest.approx(2.0 * b**2, rel=1e-9)
    c = combine([out])
    assert c.mean == pytest.approx(out.mean) and c.accuracy == pytest.approx(out.accuracy)
    g = release("clipped_box_zcdp", X, Budget.zcdp(0.1), n_public=True, bounds=BOUNDS)
    assert g.noise == "gaussian"
    assert g.accuracy == pytest.approx(FACTOR["gaussian"] * np.sqrt(g.variance), rel=1e-9)


def test_a_simulated_release_states_a_variance_and_combines_approximately() -> None:
    out = release("plan", X, Budget.zcdp(0.5), n_public=True, bounds=BOUNDS)
    assert out.noise == "simulated"
    assert np.all(np.isfinite(out.variance)) and np.all(out.variance > 0)
    exact = release("clipped_box_zcdp", X, Budget.zcdp(0.5), n_public=True, bounds=BOUNDS)
    c = combine([out, exact])
    assert c.method.startswith("approximate") and np.all(c.variance < exact.variance)
    # equal releases: half the variance, and a half-width of sqrt(V) times the release's own
    # ratio of half-width to standard deviation, at least the Gaussian 1.96 (the noise's shape
    # is not known). The release's half-width is itself simulated (OS randomness), so its ratio
    # varies run to run; below 1.96/sqrt(2) the combination states a wider half-width than the
    # one release did (docs/release.md).
    twice = combine([out, out])
    ratio = float(np.max(out.accuracy / np.sqrt(out.variance)))
    np.testing.assert_allclose(twice.variance, out.variance / 2, rtol=1e-4)
    np.testing.assert_allclose(
        twice.accuracy, max(1.96, ratio) * np.sqrt(out.variance / 2), rtol=1e-4
    )
    with pytest.raises(ValueError, match="different columns"):
        combine(
            [
                out,
                release(
                    "clipped_box_zcdp", X[:, :1], Budget.zcdp(0.5), n_public=True, bounds=BOUNDS
                ),
            ]
        )


def test_composition_adds_epsilons_or_rhos() -> None:
    pure = composition([Budget.pure(0.25), Budget.pure(0.5)], "pure")
    assert pure.total == pytest.approx(0.75) and pure.equation() == "ε = 0.25 + 0.5 = 0.75"
    z = composition([Budget.zcdp(0.1), Budget.pure(1.0)], "zcdp")
    assert z.total == pytest.approx(0.6) and "adding the ρ's" in z.rule
    with pytest.raises(ValueError, match="cannot be counted in ε"):
        composition([Budget.zcdp(0.1)], "pure")


def test_the_odometer_refuses_a_remeasurement_beyond_its_total() -> None:
    odo = Odometer(Budget.pure(1.0))
    first = odo.run(
        release, "clipped_laplace", X, budget=Budget.pure(0.4), n_public=True, bounds=BOUNDS
    )
    second = odo.run(
        release, "clipped_laplace", X, budget=Budget.pure(0.4), n_public=True, bounds=BOUNDS
    )
    with pytest.raises(ValueError, match="nothing was released"):
        odo.run(
            release, "clipped_laplace", X, budget=Budget.pure(0.4), n_public=True, bounds=BOUNDS
        )
    assert odo.spent == pytest.approx(0.8)
    total = composition([first.budget, second.budget], "pure")
    assert total.total == pytest.approx(odo.spent)
    c = combine([first, second])
    assert np.all(c.accuracy < first.accuracy)  # two halves: about 1/sqrt(2) of one
    assert c.accuracy == pytest.approx(first.accuracy / math.sqrt(2), rel=0.1)
