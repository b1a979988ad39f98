"""The privacy audit: it catches the broken estimators at its default settings, it is valid on the
honest ones, and its pieces (pairs, claims, bounds, stage audits, private bounds, overrides) do what
they say. Every test is deterministic (fixed seeds); an honest estimator exceeds its claim on a
given seed with probability at most 1 − confidence, which ``test_validity_*`` checks over many
seeds. The long ones are marked ``slow`` (``make test`` runs them, ``make test-fast`` does not);
the validity checks over every registered entry and over repeated audits, and PLAN's stage-by-stage
power, are marked ``long`` (``make long`` runs them, and CI after ``make test``); ``make audit``
runs the full profile (``dpcore.audit.profile``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import registry
from dpcore.audit import (
    BROKEN_SPECS,
    audit,
    claims_for,
    gaussian_ledger,
    likelihood_ratio,
    native_budget,
    pair_grid,
    pairs_for,
    variants_for,
)
from dpcore.audit.bounds import cp_lower, cp_upper, evaluate, loss_bound
from dpcore.audit.stages import stages_for
from dpcore.privacy import Budget

PURE = Budget.pure(1.0)
ZCDP = Budget.zcdp(0.5)
CONFIDENCE = 0.99

# ------------------------------------------------------------------------------------------
# caught at the default settings


@pytest.mark.parametrize(
    ("name", "variant", "budget"),
    [
        pytest.param("broken_no_clamp", "honest", PURE, id="no-clamp"),
        pytest.param("broken_full_eps_per_coordinate", "honest", PURE, id="full-eps-per-coord"),
        pytest.param("broken_exact_mean_large_n", "honest", PURE, id="exact-mean-n20"),
        pytest.param("clipped_laplace", "noise_cut", PURE, id="laplace-cut30"),
        pytest.param("gaussian_public", "noise_cut", ZCDP, id="gaussian-cut30"),
    ],
)
def test_broken_is_caught_at_default_settings(name, variant, budget):
    r = audit(name, budget, variant=variant, rng=1)
    assert r.violated, f"{name}/{variant}: {r.summary()}"
    assert r.lower > r.claim.value


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "variant", "budget", "method"),
    [
        pytest.param("clipped_box_zcdp", "noise_cut", ZCDP, "black box", id="box-zcdp-cut30"),
        pytest.param("simplex_gauss", "noise_cut", ZCDP, "black box", id="simplex-gauss-cut30"),
        pytest.param("plan", "noise_cut", ZCDP, "stage: PLAN", id="plan-final-stage-cut30"),
        pytest.param("pmwm", "noise_cut", PURE, "stage: PMWM", id="pmwm-mean-stage-cut30"),
        pytest.param("pmwm_zcdp", "noise_cut", ZCDP, "stage: PMWM", id="pmwm-zcdp-mean-cut30"),
        pytest.param("plugin_laplace", "data_derived_n", PURE, "black box", id="data-derived-n"),
    ],
)
@pytest.mark.long  # a long statistical check: `make long` (CI runs it)
def test_broken_is_caught_slow(name, variant, budget, method):
    r = audit(name, budget, variant=variant, rng=1)
    assert r.violated, f"{name}/{variant}: {r.summary()}"
    assert r.method.startswith(method)


@pytest.mark.slow
@pytest.mark.long
def test_plan_noise_halved_is_caught_stage_by_stage():
    """The black box has no power on the whole of PLAN (the private centre and radius hide the
    noise); the stage audit of its final noisy sum has."""
    r = audit("plan", Budget.zcdp(0.125), variant="noise_halved", draws=1000, rng=0)
    assert r.violated and r.method.startswith("stage: PLAN")
    assert r.parts[0].method == "black box"


# ------------------------------------------------------------------------------------------
# honest estimators keep their claim


@pytest.mark.parametrize("name", ["clipped_laplace", "gaussian_public"])
def test_honest_one_stage_passes_at_default_settings(name):
    spec = registry.get(name)
    r = audit(name, PURE if spec.notion == "pure" else ZCDP, rng=0)
    assert not r.violated, r.summary()
    assert r.pairs_tried >= 27  # the n ladder x d x the kinds of pair, all run


def _slow_cases() -> list:
    out = []
    for spec in registry.all_estimators():
        if spec.notion == "none" or spec.name.startswith("peer_opendp"):
            continue  # OpenDP's mean takes 10-200 ms a call; `make audit` audits it
        out.append(pytest.param(spec.name, id=spec.name))
    return out


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("name", _slow_cases())
def test_every_registered_estimator_keeps_its_claim(name):
    """The quick grid (smallest n, d = 1; stages at n = 2, d = 1) at 1,000 draws: validity, not
    power (``make audit`` runs the full grid)."""
    spec = registry.get(name)
    budget = Budget.zcdp(0.125) if spec.notion == "zcdp" else PURE
    r = audit(name, budget, draws=1000, grid="quick", calibrate=False, rng=0)
    assert r.relation in (spec.neighbouring, "replace-one")
    for part in r.parts:
        assert not part.violated, part.summary()


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize(
    ("name", "budget", "runs"),
    [("clipped_laplace", PURE, 40), ("gaussian_public", ZCDP, 40), ("simplex_gauss", ZCDP, 20)],
)
def test_validity_over_repeated_audits(name, budget, runs):
    """At confidence 0.8 an honest estimator may exceed its claim in at most 20% of audits; over
    ``runs`` independent audits the count must stay below the binomial's 0.999 quantile."""
    exceed = sum(
        audit(name, budget, draws=300, screen=200, confidence=0.8, grid="quick", rng=s).violated
        for s in range(runs)
    )
    assert exceed <= stats.binom.ppf(0.999, runs, 0.2), exceed


# ------------------------------------------------------------------------------------------
# paths and overrides


def test_private_bounds_path_is_audited():
    r = audit("clipped_laplace", PURE, path="private bounds", draws=500, grid="quick", rng=0)
    assert r.method.startswith("black box (private bounds")
    assert not r.violated and r.claim.notion == "pure"
    broken = audit(
        "clipped_laplace",
        PURE,
        path="private bounds",
        variant="noise_halved",
        draws=2000,
        grid="quick",
        rng=0,
    )
    assert broken.violated


def test_public_overrides_pass_through_and_defining_ones_are_refused():
    r = audit("wwm_smith", PURE, overrides={"widen": 2.0}, draws=300, grid="quick", rng=0)
    assert r.overrides == {"widen": 2.0} and not r.violated
    with pytest.raises(ValueError, match="known_n"):
        audit("simplex_laplace", PURE, overrides={"known_n": True}, draws=300, grid="quick")


# ------------------------------------------------------------------------------------------
# the building blocks


def test_pairs_move_every_coordinate_and_reach_outside_the_box():
    for p in pairs_for("replace-one", n=3, d=4, bounds=(-2.0, 3.0)):
        assert p.x.shape == p.x_prime.shape == (3, 4)
        assert np.sum(np.any(p.x != p.x_prime, axis=1)) == 1
        changed = np.flatnonzero(np.any(p.x != p.x_prime, axis=1))[0]
        assert np.all(p.x[changed] != p.x_prime[changed])  # every coordinate moved
    out = {p.key: p for p in pairs_for("replace-one", n=2, d=1)}["replace-outside"]
    assert out.x_prime.max() == 10.0
    adds = pairs_for("add-remove", n=3, d=1)
    assert {p.key for p in adds} == {"add-high", "add-same", "add-low", "add-outside"}
    with pytest.raises(ValueError, match="relation"):
        pairs_for("swap", n=3)
    with pytest.raises(ValueError, match="lower < upper"):
        pairs_for("replace-one", n=3, bounds=(1.0, 0.0))


def test_default_grid_is_the_n_ladder_by_d_by_box():
    spec = registry.get("clipped_laplace")
    grid = pair_grid(spec, "replace-one", n0=2)
    assert {(p.n, p.d) for p in grid} == {(n, d) for n in (2, 20, 200) for d in (1, 4, 16)}
    assert {p.bounds for p in grid} == {(0.0, 1.0), (-2.0, 3.0)}
    binary = pair_grid(registry.get("binary_naive_laplace"), "replace-one", n0=2)
    assert all(p.key != "replace-outside" and p.d >= 2 for p in binary)


def test_claims_are_native():
    assert claims_for(PURE)[0].delta == 0.0
    gdp = claims_for(ZCDP, gaussian=True)
    assert len(gdp) == 1 and gdp[0].mu == pytest.approx(1.0) and gdp[0].measure == "μ"
    # an (ε, δ) budget handed to a pure estimator is audited as the pure ε it converts to
    b = Budget.approx(1.0, 1e-6)
    assert native_budget(registry.get("clipped_laplace"), b).notion == "pure"
    assert native_budget(registry.get("plan_as_published"), ZCDP).rho_value == pytest.approx(0.75)
    assert gaussian_ledger(registry.get("gaussian_public"), ZCDP, {})
    assert not gaussian_ledger(registry.get("plan"), ZCDP, {})


def test_gdp_bound_recovers_mu_and_is_valid():
    # two unit Gaussians 1 apart are exactly 1-GDP: the plug-in at the midpoint is about 1, and the
    # lower bound stays under 1 with the confidence it states
    claim = claims_for(ZCDP, gaussian=True)[0]
    g = np.random.default_rng(0)
    a, b = g.standard_normal(200_000), 1.0 + g.standard_normal(200_000)
    from dpcore.audit.bounds import Event

    lower, point, _ = evaluate(Event("<", 0.5, "D"), claim, a, b, 0.01)
    assert point == pytest.approx(1.0, abs=0.02) and lower <= 1.0
    assert float(loss_bound(0.5, 0.5, claim)) == 0.0


def test_clopper_pearson_bounds_cover_at_their_level():
    g = np.random.default_rng(0)
    p, m = 0.07, 500
    k = g.binomial(m, p, size=20_000)
    assert np.mean(cp_lower(k, m, 0.05) > p) <= 0.05
    assert np.mean(cp_upper(k, m, 0.05) < p) <= 0.05
    assert cp_lower(0, m, 0.05) == 0.0 and cp_upper(m, m, 0.05) == 1.0


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="non-private reference"):
        audit("empirical", PURE)
    with pytest.raises(ValueError, match="draws"):
        audit("clipped_laplace", PURE, draws=10)
    with pytest.raises(ValueError, match="variant"):
        audit("clipped_laplace", PURE, variant="data_derived_n")
    with pytest.raises(ValueError, match="pair_keys"):
        audit("clipped_laplace", PURE, pair_keys=["add-high"], grid="quick")
    with pytest.raises(ValueError, match="path"):
        audit("clipped_laplace", PURE, path="elsewhere")


def test_variants_stages_and_broken_specs():
    assert variants_for("simplex_laplace") == [
        "honest",
        "noise_halved",
        "noise_cut",
        "data_derived_n",
    ]
    assert variants_for("empirical") == []
    assert [s.key for s in stages_for(registry.get("plan"))] == ["plan-noisy-sum"]
    assert [s.key for s in stages_for(registry.get("pmwm_zcdp"))] == ["pmwm-mean"]
    assert stages_for(registry.get("clipped_laplace")) == []
    names = {s.name for s in registry.all_estimators()}
    assert not set(BROKEN_SPECS) & names  # never in the public registry


def test_likelihood_ratio_of_a_laplace_shift():
    g = np.random.default_rng(0)
    a, b = g.laplace(1.0, 1.0, 50_000), g.laplace(0.0, 1.0, 50_000)
    lr = likelihood_ratio(a, b, bins=20)
    ok = np.isfinite(lr["log_ratio"])
    assert np.all(np.abs(lr["log_ratio"][ok]) < 1.25)
    assert lr["log_ratio"][ok].max() > 0.8
    assert math.isfinite(float(np.nanmax(lr["se"])))
