"""dpcore.theory.risk: the odds bound, the trade-off curves and guessing bounds agree with each
other and with their definitions, and the reference deployments read as the budgets they publish."""

import math

import numpy as np
import pytest

from dpcore.privacy import Budget, zcdp_to_approx
from dpcore.theory.risk import (
    DEPLOYMENTS,
    OddsBound,
    deployments_on_scale,
    dp_tradeoff,
    gdp_guess_rate,
    gdp_mu,
    gdp_tradeoff,
    guess_rate_bound,
    odds_epsilon,
    posterior_bound,
    posterior_floor,
)

PRIORS = np.linspace(0.01, 0.99, 99)


@pytest.mark.parametrize("eps", [0.01, 0.5, 1.0, 3.0, 10.0])
def test_posterior_odds_grow_exactly_e_to_the_epsilon(eps):
    post = posterior_bound(PRIORS, eps)
    odds_ratio = (post / (1 - post)) / (PRIORS / (1 - PRIORS))
    np.testing.assert_allclose(odds_ratio, math.exp(eps), rtol=1e-8)
    low = posterior_floor(PRIORS, eps)
    np.testing.assert_allclose((PRIORS / (1 - PRIORS)) / (low / (1 - low)), math.exp(eps))
    assert np.all(low <= PRIORS) and np.all(PRIORS <= post)


def test_posterior_bound_at_huge_epsilon_is_certainty_not_nan():
    out = posterior_bound(np.array([0.0, 0.3]), 1e4)
    assert out.tolist() == [0.0, 1.0]


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 2.0])
def test_best_guess_of_two_values_is_the_trade_off_curves_balanced_point(mu):
    """Guessing which of two equally likely values: the best error is min over tests of
    (α + β)/2, which the trade-off curve gives; it must match the closed form."""
    alpha = np.linspace(0, 1, 200_001)
    best_error = float(np.min((alpha + gdp_tradeoff(alpha, mu)) / 2))
    assert best_error == pytest.approx(1 - gdp_guess_rate(mu), abs=1e-6)


@pytest.mark.parametrize(("eps", "delta"), [(0.1, 0.0), (1.0, 0.0), (2.0, 1e-3)])
def test_pure_dp_guess_bound_is_its_trade_off_curves_balanced_point(eps, delta):
    alpha = np.linspace(0, 1, 200_001)
    best_error = float(np.min((alpha + dp_tradeoff(alpha, eps, delta)) / 2))
    assert best_error == pytest.approx(1 - guess_rate_bound(eps, delta), abs=1e-5)


def test_gaussian_curve_is_the_gaussian_tests_error():
    """β(α) of μ-GDP is the false-negative rate of the threshold test N(0,1) vs N(μ,1)."""
    rng = np.random.default_rng(0)
    mu, t = 1.0, 1.2
    a = float((rng.normal(0, 1, 400_000) > t).mean())
    b = float((rng.normal(mu, 1, 400_000) <= t).mean())
    assert float(gdp_tradeoff(a, mu)) == pytest.approx(b, abs=0.005)


def test_no_information_means_guessing():
    alpha = np.linspace(0, 1, 11)
    np.testing.assert_allclose(gdp_tradeoff(alpha, 0.0), 1 - alpha, atol=1e-12)
    np.testing.assert_allclose(dp_tradeoff(alpha, 0.0), 1 - alpha, atol=1e-12)
    assert gdp_guess_rate(0.0) == 0.5 and guess_rate_bound(0.0) == 0.5


def test_odds_epsilon_reads_each_notion():
    assert odds_epsilon(Budget.pure(1.5)).epsilon == 1.5
    assert odds_epsilon(Budget.pure(1.5)).delta == 0.0
    b = odds_epsilon(Budget.approx(2.0, 1e-5))
    assert (b.epsilon, b.delta) == (2.0, 1e-5)
    z = odds_epsilon(Budget.zcdp(0.5), 1e-6)
    assert z.epsilon == pytest.approx(zcdp_to_approx(0.5, 1e-6, "cks"))
    assert z.delta == 1e-6 and "δ = 1e-06" in z.rule
    assert z.factor == pytest.approx(math.exp(z.epsilon))
    assert OddsBound(800.0, 0.0, "").factor == math.inf


def test_gdp_mu_is_sqrt_two_rho():
    assert gdp_mu(0.125) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="rho"):
        gdp_mu(-1.0)


def test_census_persons_budget_is_the_production_codes_global_scale():
    """The production configuration sets global_scale = 339/542 for persons; ρ = 1/scale²."""
    census = next(d for d in DEPLOYMENTS if d.who == "US Census Bureau")
    assert census.value == pytest.approx((542 / 339) ** 2, abs=0.005)
    assert census.unit == "rho" and census.model == "central"


def test_every_deployment_names_its_source_year_and_unit():
    for d in DEPLOYMENTS:
        assert any(str(y) in d.source for y in range(2014, 2025)), d
        assert d.model in {"central", "local"} and d.per
        assert 0 < len(d.short) <= 22, d.short
        assert d.budget().notion == {"rho": "zcdp", "eps": "pure", "eps_delta": "approx"}[d.unit]
    rows = deployments_on_scale(1e-6)
    eps = [e for _, e, _ in rows]
    assert eps == sorted(eps) and len(rows) == len(DEPLOYMENTS)


@pytest.mark.parametrize("page_delta", [1e-6, 1e-8])
def test_the_census_rho_is_read_at_the_delta_the_bureau_uses_not_the_pages(page_delta):
    """ρ = 2.56 at the Bureau's δ = 10⁻¹⁰ is ε ≈ 17.1 (quoted as 17.14); at the page's 10⁻⁶ it
    would be about 13.6, a budget the Bureau never stated."""
    (row,) = [r for r in deployments_on_scale(page_delta) if r[0].short == "Census 2020 persons"]
    _, eps, delta = row
    assert delta == 1e-10
    assert eps == pytest.approx(17.14, abs=0.05)
    assert "δ = 1e-10" in row[0].label()
