"""Reference curves and the Appendix C optimal-scaling result (specs/plan.md §6, §8, §9.10)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from dpcore.privacy import zcdp_to_approx
from dpcore.theory import plan as theory


def test_constants() -> None:
    assert math.isclose(zcdp_to_approx(0.01, 1e-6, method="standard"), 0.7534, abs_tol=5e-5)
    assert math.isclose((7 / 9) ** 3, 0.470508, abs_tol=1e-6)
    assert math.isclose(theory.gaussian_moment_constant(1), math.sqrt(2 / math.pi), rel_tol=1e-12)
    assert math.isclose(theory.gaussian_moment_constant(2), 1.0, rel_tol=1e-12)
    assert theory.plan_exponent_norm(2) == 1.0 and math.isclose(theory.plan_exponent_norm(1), 2 / 3)


def test_figure6_numbers() -> None:
    got = {k: np.round(v, 2) for k, v in theory.figure6_stds((4.0, 1.0)).items()}
    assert got["no scaling"].tolist() == [4.12, 4.12]
    assert got["equal split"].tolist() == [5.66, 1.41]
    assert got["optimal p=1"].tolist() == [4.73, 1.88]
    assert got["optimal p=2"].tolist() == [4.47, 2.24]


@pytest.mark.slow
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_numerical_minimiser_is_delta_to_the_2_over_p_plus_2(p: float) -> None:
    delta = np.array([5.0, 2.0, 1.0, 0.3, 0.1])

    def objective(log_s: np.ndarray) -> float:
        return theory.expected_scaled_noise_pp(delta, np.exp(log_s), rho=1.0, p=p)

    res = optimize.minimize(
        objective,
        np.zeros(delta.size),
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 40000, "maxfev": 40000},
    )
    s = np.exp(res.x)
    s /= s[0]
    target = delta ** (2 / (p + 2))
    np.testing.assert_allclose(s, target / target[0], rtol=2e-3)
    best = theory.optimal_scaled_noise_pp(delta, rho=1.0, p=p)
    assert math.isclose(res.fun, best, rel_tol=1e-6)
    assert math.isclose(
        theory.expected_scaled_noise_pp(delta, theory.optimal_scaling(delta, p), 1.0, p),
        best,
        rel_tol=1e-12,
    )
    # at Delta_bar = 1 the minimum is ||Delta||_{2p/(p+2)}^p times the Gaussian moment factor
    s_opt = theory.optimal_scaling(delta, p)
    s_unit = s_opt / math.sqrt(np.sum(delta**2 / s_opt**2))
    assert math.isclose(np.sum(delta**2 / s_unit**2), 1.0, rel_tol=1e-12)


def test_expected_noise_formula_by_simulation() -> None:
    # Monte Carlo with 200k draws: relative sd of the mean of |Z|^p is below 0.5%; allow 2%.
    rng = np.random.default_rng(0)
    delta, s, rho, p = np.array([3.0, 1.0, 0.5]), np.array([1.5, 0.7, 0.2]), 0.3, 1.0
    std = theory.noise_std_per_coordinate(delta, s, rho)
    z = rng.standard_normal((200_000, 3)) * std
    mc = np.mean(np.sum(np.abs(z) ** p, axis=1))
    assert math.isclose(mc, theory.expected_scaled_noise_pp(delta, s, rho, p), rel_tol=0.02)


def test_reference_curves_order_and_scaling() -> None:
    sigma = (256 / np.arange(1, 257)) ** 1.0
    c = theory.reference_curves(sigma, 10_000, 0.5, p=2)
    assert c["plan"] <= c["gaussian_mechanism"] and c["plan"] <= c["equal_split"]
    assert math.isclose(c["plan"], math.sqrt(2 / 0.5) * sigma.sum() / 10_000, rel_tol=1e-12)
    assert math.isclose(c["sampling"], np.linalg.norm(sigma) / 100, rel_tol=1e-12)
    flat = theory.reference_curves(np.ones(64), 1000, 1.0, p=2)
    # without skew PLAN and the Gaussian mechanism coincide: ||1||_1 = sqrt(d) ||1||_2
    assert math.isclose(flat["plan"], flat["gaussian_mechanism"], rel_tol=1e-12)
    assert math.isclose(
        theory.plan_noise_error(sigma, 100, 1.0, margin=2.0),
        2 * theory.plan_noise_error(sigma, 100, 1.0),
        rel_tol=1e-12,
    )
    with pytest.raises(ValueError):
        theory.plan_noise_error([1.0, np.nan], 10, 1.0)
    with pytest.raises(ValueError):
        theory.sampling_error([1.0], 0)


def test_premature_stop_warning_is_the_risk_above_five_percent():
    """One ``premature_stop_risk`` (the probability, dpcore.quantiles); the estimator's warning rule
    (theory.winsorized.premature_stop_warning) is that probability above 1 - exp(-e^-3) for pure walks."""
    import itertools
    import math

    from dpcore import quantiles
    from dpcore.theory.winsorized import premature_stop_warning

    threshold = -math.expm1(-math.exp(-3.0))
    cases = 0
    for n, tau, eps, (lo, hi), beta in itertools.product(
        (20, 100, 1000, 10_000),
        (0.01, 0.05, 0.2),
        (0.005, 0.05, 0.5),
        ((-10.0, 10.0), (0.0, 1e6)),
        (1.001, 1.1),
    ):
        K = quantiles.grid_size((lo, hi), beta)
        risk = float(quantiles.premature_stop_risk(n, 1.0 - tau, eps, K))
        if abs(risk - threshold) < 1e-9:
            continue
        assert premature_stop_warning(n, tau, lo, hi, beta, epsilon_query=eps) == (risk > threshold)
        cases += 1
    assert cases > 130  # of 144
