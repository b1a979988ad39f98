"""PLAN's privacy checks: the release, the variance groups and the radius on worst-case neighbours
(specs/plan.md §9), the as-published centre's true charge, and every ledger line written by a
mechanism."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import registry
from dpcore.data import generate
from dpcore.estimators import plan as P
from dpcore.privacy import Budget


def _gauss(n: int, d: int, alpha: float, seed: int):
    return generate("gaussian", n, d, alpha, rng=seed)


# ---------------------------------------------------------------------------------------------
# privacy checks on worst-case neighbours
# ---------------------------------------------------------------------------------------------


def test_release_on_worst_case_neighbours_stays_within_rho_noise() -> None:
    # Fix centre, sigma^ and C (outputs of earlier private stages). Neighbours x, x' differ in one
    # row, moved from far out on one side to far out on the other: the clipped sums differ by
    # exactly 2C, and the Renyi divergence of the Gaussian release, alpha ||diff||^2 / (2 tau^2),
    # equals alpha * rho_noise: the budget is met with equality, never exceeded.
    rng = np.random.default_rng(2)
    n, d = 200, 5
    sigma = np.array([4.0, 2.0, 1.0, 1.0, 0.5])
    x = rng.standard_normal((n, d)) * sigma
    x2 = x.copy()
    direction = rng.standard_normal(d)
    x[0] = 1e6 * direction
    x2[0] = -1e6 * direction
    C, rho3 = 3.0, 0.4
    a = P.plan_core(x, np.zeros(d), sigma, C, rho_noise=rho3, rng=0)
    b = P.plan_core(x2, np.zeros(d), sigma, C, rho_noise=rho3, rng=0)
    diff = a.clipped_sum - b.clipped_sum
    assert math.isclose(np.linalg.norm(diff), 2 * C, rel_tol=1e-12)
    rho_emp = np.sum(diff**2) / (2 * a.noise_std_scaled**2)
    assert math.isclose(rho_emp, rho3, rel_tol=1e-12)
    # any other replacement moves the sum by at most 2C
    others = rng.standard_normal((50, d)) * 100
    for row in others[:5]:
        x3 = x.copy()
        x3[0] = row
        c3 = P.plan_core(x3, np.zeros(d), sigma, C, rho_noise=rho3, rng=0)
        assert np.linalg.norm(a.clipped_sum - c3.clipped_sum) <= 2 * C * (1 + 1e-12)


def test_variance_groups_change_in_one_value_per_column() -> None:
    # Algorithm 2: with the same (data-independent) shuffle, replacing one row changes one group
    # statistic per column, so the private median sees replace-one neighbours.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((101, 4))
    x2 = x.copy()
    x2[17] = 1e3
    k = 2
    perm = np.random.default_rng(5).permutation(101)[: 2 * k * (101 // (2 * k))]

    def groups(a: np.ndarray) -> np.ndarray:
        v = (a[perm[0::2]] - a[perm[1::2]]) ** 2 / 2
        return v.reshape(-1, k, 4).sum(axis=1)

    changed = np.sum(groups(x) != groups(x2), axis=0)
    assert np.all(changed <= 1)


def test_em_radius_release_density_ratio_on_neighbours() -> None:
    # Radius stage: replacing one row changes one scaled norm. For the exponential mechanism on
    # [0, U] the output density at y is exp(eps u(y)/2) / Z; on worst-case neighbours (one norm
    # moved from 0 to U) the log density ratio stays within eps = sqrt(8 rho_radius).
    rng = np.random.default_rng(4)
    norms = np.abs(rng.standard_normal(60)) * 3
    n2 = norms.copy()
    norms[0], n2[0] = 0.0, 20.0
    U, q, rho_r = 20.0, 0.9, 0.05
    eps = math.sqrt(8 * rho_r)
    grid = np.linspace(0.01, U - 0.01, 2001)

    def log_density(z: np.ndarray) -> np.ndarray:
        srt = np.concatenate(([0.0], np.sort(z), [U]))
        u = -np.abs(np.arange(z.size + 1) - q * z.size)
        log_z = np.log(np.sum(np.diff(srt) * np.exp(eps * u / 2)))
        rank = np.searchsorted(np.sort(z), grid, side="left")
        return eps * (-np.abs(rank - q * z.size)) / 2 - log_z

    ratio = np.abs(log_density(norms) - log_density(n2))
    assert ratio.max() <= eps + 1e-9
    assert ratio.max() > 0.5 * eps  # the check is not vacuous


@pytest.mark.parametrize("quantile", ["exponential", "binary_search"])
def test_as_published_centre_is_charged_9x_through_its_true_sensitivity(quantile: str) -> None:
    # The tripled data {x - 0.1, x, x + 0.1}: one person moves three points, so the mechanism is
    # told sensitivity 3 and charges 9 rho_center for the noise of rho_center (ratio 1).
    ds = _gauss(400, 6, 1.0, 0)
    est = registry.run("plan_as_published", ds, Budget.zcdp(0.5), rng=0, quantile=quantile)
    centre = [c for c in est.ledger.charges if c.stage == P.STAGE_LABELS["center"]]
    assert centre and all(c.sensitivity == 3.0 for c in centre)
    assert math.fsum(c.amount for c in centre) == pytest.approx(9 * 0.0625 * 0.5, rel=1e-12)
    assert est.ledger.total() == pytest.approx(1.5 * 0.5, rel=1e-12)
    for c in est.ledger.charges:
        assert c.mechanism in ("gaussian", "exponential") and c.ratio == pytest.approx(1.0), c


@pytest.mark.parametrize(
    "name", ["plan", "plan_l1", "plan_oracle", "plan_noscale", "plan_equal_split"]
)
def test_every_ledger_line_is_written_by_a_mechanism_at_ratio_one(name: str) -> None:
    ds = (
        generate("binary_plan", 500, 16, 0.25, rng=0)
        if name == "plan_l1"
        else _gauss(400, 6, 1.0, 0)
    )
    est = registry.run(name, ds, Budget.zcdp(0.5), rng=0)
    assert est.ledger.total() == pytest.approx(0.5, rel=1e-12)
    for c in est.ledger.charges:
        assert c.mechanism in ("gaussian", "exponential") and c.ratio == pytest.approx(1.0), c
