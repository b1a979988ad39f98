"""The simplex guarantee at the API edge: relations, known n, side information, released
warnings, the resize radius, public inputs, calibration and the private-bounds path.

Spec: specs/simplex.md §7 (testable properties). Tolerances are derived from the Monte Carlo
standard error of the statistic (stated at each test), never tuned.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.audit import calibration, problems
from dpcore.data import generate
from dpcore.estimators.simplex import simplex_mean, simplex_mean_draws
from dpcore.estimators.simplex_baselines import (
    SumOptions,
    baseline_draws,
    centred_mean,
    imputation_top,
    imputed_rows,
    noisy_sum_mean,
    plugin_mean,
    resize_mean,
)
from dpcore.privacy import Budget
from dpcore.registry import all_estimators, get

# ------------------------------------------------------------------------------------------
# the guarantee at the API edge: relations, known n, side information, released warnings


class TestKnownNRelation:
    def test_no_add_remove_entry_divides_by_the_true_n(self):
        """Items 1 and 3: the known-n estimate (S3) and B1/B1c divide by the true n, which is private
        under add/remove; the registry only offers them as replace-one, with replace-one params."""
        for spec in all_estimators():
            known_n = getattr(spec.func, "known_n", False) or isinstance(spec.func, SumOptions)
            if known_n:
                assert spec.neighbouring == "replace-one", spec.name
                assert spec.func.neighbouring == "replace-one", spec.name
        names = {s.name for s in all_estimators()}
        assert not names & {
            "simplex_known_n_laplace",
            "simplex_known_n_gauss",
            "sum_known_n_laplace",
            "sum_known_n_gauss",
        }

    def test_known_n_under_add_remove_leaks_n(self):
        """Why (item 1): D = two zeros, D' = three zeros, bounds [0, 1], eps = 1. The known-n mean at
        add/remove sensitivity has noise (Z1 - Z2)/(2n) with Z ~ Lap(1): P(mean > 1) is far larger
        with n = 2 than with n = 3 (about 5.4 times, exceeding e). Exact: P(Z1 - Z2 > 2n) with
        Z1 - Z2 ~ the difference of two Lap(1): (1 + t/2) e^-t / 2 at t = 2n."""

        def tail(t: float) -> float:
            return (1 + t / 2) * math.exp(-t) / 2

        ratio = tail(4) / tail(6)
        assert ratio == pytest.approx(3 / 4 * math.e**2, rel=1e-12) and ratio > math.e
        side = {"known_n": True, "side_information": True, "reps": 400_000}
        d2 = simplex_mean_draws(np.zeros(2), epsilon=1.0, bounds=(0, 1), rng=1, **side)
        d3 = simplex_mean_draws(np.zeros(3), epsilon=1.0, bounds=(0, 1), rng=2, **side)
        p2, p3 = np.mean(d2[:, 0] > 1), np.mean(d3[:, 0] > 1)
        assert p2 == pytest.approx(tail(4), rel=0.05) and p3 == pytest.approx(tail(6), rel=0.1)
        assert p2 / p3 > math.e

    @pytest.mark.parametrize(
        ("name", "p"), [("centred_sum_known_n_laplace", 1), ("centred_sum_known_n_gauss", 2)]
    )
    def test_centred_sum_has_replace_one_sensitivity(self, name, p):
        """Item 2: under replace-one the centred sum moves by up to the full width ||U - L||_p (a row
        from one corner of the box to the other), not the add/remove ||U - L||_p / 2."""
        spec = get(name)
        assert spec.neighbouring == "replace-one"
        lo, hi = np.array([0.0, -1.0, 2.0]), np.array([1.0, 3.0, 2.5])
        x = np.random.default_rng(0).uniform(lo, hi, (50, 3))
        budget = Budget.pure(0.8) if p == 1 else Budget.zcdp(0.3)
        est = spec.run(x, budget, bounds=(lo, hi), rng=0)
        w = float(np.linalg.norm(hi - lo, p))
        assert est.diagnostics.sensitivity == pytest.approx(w, rel=1e-15)
        v = 2 * (w / 0.8) ** 2 if p == 1 else w**2 / (2 * 0.3)
        np.testing.assert_allclose(est.diagnostics.noise_std, math.sqrt(v) / 50, rtol=1e-12)


@pytest.mark.parametrize(
    "name", sorted(s.name for s in all_estimators() if s.family.startswith("simplex"))
)
def test_warnings_release_no_data_dependent_counts(name):
    """Item 6: neighbouring data sets (one row inside vs outside the box; one row added) give
    identical warning lists; the clamped-row count and n are in ``diagnostics.nonprivate`` only."""
    spec = get(name)
    base = np.random.default_rng(0).uniform(0, 1, (40, 2))
    out = base.copy()
    out[0] = [5.0, -3.0]
    added = np.vstack([out, [[7.0, 7.0]]])
    budget = Budget.pure(1.0) if spec.notion == "pure" else Budget.zcdp(0.5)
    ests = [spec.run(x, budget, bounds=(0, 1), rng=3) for x in (base, out, added)]
    assert (
        ests[0].diagnostics.warnings == ests[1].diagnostics.warnings == ests[2].diagnostics.warnings
    )
    assert [e.diagnostics.nonprivate["clamped_rows"] for e in ests] == [0, 1, 2]
    assert [e.diagnostics.nonprivate["n"] for e in ests] == [40, 40, 41]


# ------------------------------------------------------------------------------------------
# known n under add-remove, the resize radius, public inputs, calibration


class TestSideInformation:
    """Known n under add-remove is not DP: refused unless the caller says it is side information."""

    X = np.random.default_rng(0).random((60, 1))

    @pytest.mark.parametrize("budget", [{"epsilon": 1.0}, {"rho": 0.5}])
    @pytest.mark.parametrize(
        "call",
        [
            lambda x, **kw: simplex_mean(x, known_n=True, **kw),
            lambda x, **kw: simplex_mean_draws(x, known_n=True, reps=3, **kw),
            noisy_sum_mean,
            lambda x, **kw: noisy_sum_mean(x, centred=True, **kw),
            lambda x, **kw: baseline_draws("b1", x, reps=3, **kw),
        ],
    )
    def test_refused_without_the_flag(self, call, budget):
        with pytest.raises(ValueError, match="side_information=True"):
            call(self.X, bounds=(0, 1), neighbouring="add-remove", rng=0, **budget)
        call(
            self.X, bounds=(0, 1), neighbouring="add-remove", side_information=True, rng=0, **budget
        )

    @pytest.mark.parametrize("func", [simplex_mean, noisy_sum_mean])
    def test_flagged_ledger_says_not_dp(self, func):
        kw = {"known_n": True} if func is simplex_mean else {}
        est = func(self.X, epsilon=1.0, bounds=(0, 1), side_information=True, rng=0, **kw)
        (charge,) = est.ledger.charges
        assert charge.note.startswith("not DP under add-remove: n used as public side information")
        rep = func(self.X, epsilon=1.0, bounds=(0, 1), neighbouring="replace-one", rng=0, **kw)
        assert "not DP" not in rep.ledger.charges[0].note

    def test_registry_refuses_the_override(self):
        with pytest.raises(ValueError):
            get("simplex_laplace").run(self.X, Budget.pure(1.0), bounds=(0, 1), known_n=True)


def _imputed_sum(est) -> tuple[np.ndarray, int]:
    """The imputed rows' sum on all-zero data with lower bound 0 (the kept rows add nothing)."""
    dg = est.diagnostics
    return dg.noiseless_mean * dg.resized_n, dg.imputed


class TestResizeRadius:
    """B4's imputed rows lie in the public l1 ball that sets the sum's sensitivity."""

    @given(
        d=st.integers(1, 300),
        frac=st.floats(1e-3, 1.5),
        impute=st.sampled_from(["uniform", "midpoint"]),
        k=st.integers(1, 50),
        seed=st.integers(0, 2**16),
    )
    @settings(max_examples=150, deadline=None)
    def test_every_imputed_row_in_the_ball(self, d, frac, impute, k, seed):
        w = np.random.default_rng(seed).uniform(0.1, 3.0, d)
        R = frac * float(w.sum())
        rows = imputed_rows(k, w, R, impute, np.random.default_rng(seed))
        assert np.all(rows >= 0) and np.all(rows <= w)
        assert np.all(np.abs(rows).sum(axis=1) <= R * (1 + 1e-12))

    @given(
        d=st.sampled_from([1, 2, 7, 64, 256]),
        frac=st.floats(1e-3, 1.2),
        impute=st.sampled_from(["uniform", "midpoint"]),
        gauss=st.booleans(),
    )
    @settings(max_examples=40, deadline=None)
    def test_estimator_imputes_inside_the_radius_that_sets_delta(self, d, frac, impute, gauss):
        """End to end, as the audit's repro: on zeros every kept row is 0, so the noiseless resized
        sum is the imputed rows' sum; its l1 norm over the number imputed is at most the radius
        (midpoint: each row exactly; uniform: their average), and Δ is the one the radius sets."""
        R = frac * d
        budget = {"rho": 0.5} if gauss else {"epsilon": 1.0}
        seen = 0
        for seed in range(60):
            est = resize_mean(
                np.zeros((2, d)), bounds=(0, 1), radius=R, impute=impute, rng=seed, **budget
            )
            total, k = _imputed_sum(est)
            want = min(math.sqrt(2) * R, math.sqrt(d)) if gauss else min(2 * R, d)
            assert est.diagnostics.sum_sensitivity == pytest.approx(want, rel=1e-12)
            if k:
                seen += 1
                assert np.abs(total).sum() / k <= R * (1 + 1e-9)
        assert seen > 0

    @pytest.mark.parametrize("impute", ["uniform", "midpoint"])
    def test_default_radius_keeps_the_box(self, impute):
        w = np.array([1.0, 2.0, 0.5])
        np.testing.assert_array_equal(imputation_top(w, float(w.sum()), impute), w)


class TestPublicInputs:
    """Non-finite or impossible public inputs are refused before anything is drawn or charged."""

    @pytest.mark.parametrize(
        "func",
        [
            simplex_mean,
            lambda x, **kw: noisy_sum_mean(x, neighbouring="replace-one", **kw),
            plugin_mean,
            centred_mean,
            resize_mean,
        ],
    )
    @pytest.mark.parametrize(
        "bad",
        [
            {"bounds": (0.0, math.inf)},
            {"bounds": (math.nan, 1.0)},
            {"bounds": (-1e308, 1e308)},
            {"bounds": (1.0, 0.0)},
            {"radius": math.nan},
            {"radius": math.inf},
            {"radius": -1.0},
        ],
    )
    def test_bad_public_inputs(self, func, bad):
        kw = {"bounds": (0.0, 1.0), **bad}
        with pytest.raises(ValueError):
            func(np.full((5, 2), 0.5), epsilon=1.0, rng=0, **kw)

    @pytest.mark.parametrize(
        ("func", "bad"),
        [
            (simplex_mean, {"count_fraction": math.nan}),
            (simplex_mean, {"count_fraction": 1.0}),
            (plugin_mean, {"split": math.nan}),
            (centred_mean, {"split": math.inf}),
            (resize_mean, {"split": math.nan}),
            (resize_mean, {"impute": "zero"}),
        ],
    )
    def test_bad_fractions(self, func, bad):
        with pytest.raises(ValueError):
            func(np.full(5, 0.5), epsilon=1.0, bounds=(0, 1), rng=0, **bad)


SIMPLEX_ENTRIES = sorted(s.name for s in all_estimators() if s.family.startswith("simplex"))


@pytest.mark.parametrize("name", SIMPLEX_ENTRIES)
def test_calibration_at_defaults(name):
    assert problems(calibration(name)) == []


@pytest.mark.parametrize(
    ("name", "public"),
    [
        ("simplex_laplace", {"count_fraction": 0.3}),
        ("simplex_gauss", {"count_fraction": 0.3, "combine": "paper", "radius": 2.0}),
        ("simplex_known_n_laplace_replace", {"radius": 3.0, "clamp": True}),
        ("plugin_laplace", {"split": 0.2}),
        ("plugin_gauss", {"split": "opendp", "shift": False}),
        ("centred_plugin_gauss", {"split": 0.7}),
        ("resize_laplace", {"radius": 0.5, "impute": "midpoint"}),
        ("resize_gauss", {"radius": 0.5, "split": 0.3}),
        ("sum_known_n_gauss_replace", {"radius": 2.0}),
    ],
)
def test_calibration_with_public_options(name, public):
    assert problems(calibration(name, **public)) == []


# ------------------------------------------------------------------------------------------
# the private-bounds path around the simplex family


def _private_bounds_runner(name: str):
    from dpcore.estimators.private_bounds import run_with_private_bounds

    spec = get(name)
    return lambda x, b, **kw: run_with_private_bounds(
        spec, x, b, share=0.25, coarse_bounds=(-10.0, 10.0), rng=kw["rng"]
    )


@pytest.mark.parametrize(
    "name", ["simplex_laplace", "simplex_gauss", "plugin_laplace", "resize_gauss"]
)
def test_private_bounds_path_calibration(name):
    tab = calibration(name, runner=_private_bounds_runner(name))
    assert problems(tab) == []
    assert list(tab.stage[:2]) == ["bounds: lower quantile", "bounds: upper quantile"]
    assert set(tab.mechanism[:2]) == {"exponential"}


@pytest.mark.parametrize("budget", [{"epsilon": 0.8}, {"rho": 0.3}])
def test_private_bounds_ledger_is_the_mechanisms(budget):
    from dpcore.estimators.private_bounds import private_bounds

    x = np.random.default_rng(1).normal(size=(300, 3))
    pb = private_bounds(x, (-10, 10), rng=0, **budget)
    assert [c.stage for c in pb.ledger.charges] == [
        "bounds: lower quantile",
        "bounds: upper quantile",
    ]
    assert all(c.mechanism == "exponential" for c in pb.ledger.charges)
    assert all(c.ratio == pytest.approx(1.0, rel=1e-12) for c in pb.ledger.charges)
    assert pb.ledger.total() == pytest.approx(next(iter(budget.values())), rel=1e-12)


@pytest.mark.parametrize(
    "bad",
    [
        {"coarse_bounds": (-math.inf, 1.0)},
        {"coarse_bounds": (math.nan, 1.0)},
        {"coarse_bounds": (-1e308, 1e308)},
        {"coarse_bounds": (1.0, -1.0)},
        {"quantiles": (0.9, 0.1)},
        {"quantiles": (math.nan, 0.9)},
        {"quantiles": 0.5},
        {"epsilon": math.nan},
        {"epsilon": math.inf},
    ],
)
def test_private_bounds_refuses_bad_public_inputs(bad):
    from dpcore.estimators.private_bounds import private_bounds

    kw = {"coarse_bounds": (-10.0, 10.0), "epsilon": 1.0, **bad}
    with pytest.raises(ValueError):
        private_bounds(np.zeros((20, 2)), rng=0, **kw)


@pytest.mark.parametrize("share", [0.0, 0.6, math.nan, "half"])
def test_run_with_private_bounds_refuses_bad_share(share):
    from dpcore.estimators.private_bounds import run_with_private_bounds

    with pytest.raises(ValueError):
        run_with_private_bounds(
            get("simplex_laplace"),
            generate("bounded", n=50, d=2, rng=0),
            Budget.pure(1.0),
            share=share,
            coarse_bounds=(-1.0, 2.0),
            rng=0,
        )
