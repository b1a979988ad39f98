"""Tests for the simplex "free lunch" estimators, their baselines and the closed-form theory:
the exact, deterministic properties (the statistical ones are in test_simplex_statistics.py,
the guarantee at the API edge in test_simplex_guarantee.py).

Spec: specs/simplex.md §7 (testable properties). Tolerances are derived from the Monte Carlo
standard error of the statistic (stated at each test), never tuned.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.data import generate
from dpcore.estimators.simplex import (
    combine_counts,
    free_count,
    mean_from_sums,
    preprocess,
    project_sums,
    simplex_mean,
    simplex_mean_draws,
    simplex_release,
    simplex_sensitivity,
    simplex_transform,
)
from dpcore.estimators.simplex_baselines import (
    centred_mean,
    noisy_sum_mean,
    plugin_mean,
    resize_mean,
)
from dpcore.privacy import Budget
from dpcore.registry import all_estimators, get
from dpcore.theory.simplex import extra_count_weight
from tests.estimators._simplex import uniform_sample, var_tol

# ------------------------------------------------------------------------------------------
# exact / deterministic


class TestTransform:
    def test_scalar_rows_on_the_simplex_edge(self):
        R = 10.0
        x = np.array([-3.0, 0.0, 2.5, 5.0, 10.0, 42.0])  # two out of range: must be clamped
        data = preprocess(x, (0.0, R))
        y = simplex_transform(data.z, data.radius)
        assert y.shape == (6, 2)
        assert np.all(y >= 0)
        np.testing.assert_allclose(np.abs(y).sum(axis=1), R, atol=1e-12)
        l2 = np.linalg.norm(y, axis=1)
        assert np.all(l2 <= R + 1e-12)
        assert l2.min() == pytest.approx(R / math.sqrt(2), abs=1e-12)  # at x = R/2
        assert np.argmin(l2) == 3
        np.testing.assert_array_equal(data.clipped, [True, False, False, False, False, True])

    def test_vector_rows_clamped_rescaled_and_padded(self):
        rng = np.random.default_rng(0)
        x = rng.normal(0.5, 1.0, (500, 3))
        data = preprocess(x, (0.0, 1.0), radius=1.5)
        y = simplex_transform(data.z, data.radius)
        assert y.shape == (500, 4)
        assert np.all(y >= 0)
        np.testing.assert_allclose(y.sum(axis=1), 1.5, atol=1e-12)
        assert np.all(np.linalg.norm(y, axis=1) <= 1.5 + 1e-12)
        assert data.clipped.any()
        # default radius: the l1 diameter of the box, nothing inside the box is rescaled
        inside = rng.uniform(0, 1, (50, 3))
        assert not preprocess(inside, (0.0, 1.0)).clipped.any()
        assert preprocess(inside, (0.0, 1.0)).radius == 3.0

    def test_unclamped_input_rejected(self):
        with pytest.raises(ValueError, match="clamped"):
            simplex_transform(np.array([[2.0]]), 1.0)

    def test_aggregate_identity(self):
        x = uniform_sample()
        rel = simplex_release(x, rho=0.5, bounds=(0, 100), rng=0)
        assert rel.s.sum() == pytest.approx(100 * 100.0, rel=1e-12)


class TestCalibration:
    @pytest.mark.parametrize(
        ("rel", "b_mult", "s_mult"),
        [("add-remove", 1.0, 1.0), ("replace-one", 2.0, math.sqrt(2.0))],
    )
    def test_scales_match_plain_sum(self, rel, b_mult, s_mult):
        """Spec §7.2: add/remove b = R/ε, σ = R/√(2ρ) (B1's full-budget scales); replace-one 2R/ε, R/√ρ."""
        x, R, eps, rho = uniform_sample(), 100.0, 0.7, 0.3
        lap = simplex_release(x, epsilon=eps, bounds=(0, R), neighbouring=rel, rng=0)
        gau = simplex_release(x, rho=rho, bounds=(0, R), neighbouring=rel, rng=0)
        assert lap.scale == pytest.approx(b_mult * R / eps, rel=1e-14)
        assert gau.scale == pytest.approx(s_mult * R / math.sqrt(2 * rho), rel=1e-14)
        if rel == "add-remove":
            side = {"side_information": True}
            b1 = noisy_sum_mean(x, epsilon=eps, bounds=(0, R), rng=0, **side).diagnostics
            g1 = noisy_sum_mean(x, rho=rho, bounds=(0, R), rng=0, **side).diagnostics
            b1, g1 = b1.noise_scale, g1.noise_scale
            assert lap.scale == b1 and gau.scale == g1

    @pytest.mark.parametrize(
        ("kw", "notion"), [({"epsilon": 0.9}, "pure"), ({"rho": 0.25}, "zcdp")]
    )
    @pytest.mark.parametrize("known", [True, False])
    def test_ledger_one_charge(self, kw, notion, known):
        est = simplex_mean(
            uniform_sample(), bounds=(0, 100), known_n=known, side_information=known, rng=1, **kw
        )
        assert est.ledger.notion == notion
        assert len(est.ledger.charges) == 1
        assert est.ledger.total() == next(iter(kw.values()))

    @pytest.mark.parametrize("kw", [{"epsilon": 0.9}, {"rho": 0.25}])
    def test_ledger_with_extra_count_sums_to_budget(self, kw):
        budget = next(iter(kw.values()))
        est = simplex_mean(uniform_sample(), bounds=(0, 100), count_fraction=0.3, rng=1, **kw)
        assert est.ledger.by_stage() == pytest.approx(
            {"simplex release": 0.7 * budget, "extra count": 0.3 * budget}, rel=1e-15
        )
        assert abs(est.ledger.total() - budget) <= 2 * np.spacing(budget)

    @pytest.mark.parametrize(
        ("func", "kw"),
        [
            (plugin_mean, {}),
            (centred_mean, {}),
            (resize_mean, {}),
            (plugin_mean, {"split": "opendp", "shift": False}),
            (noisy_sum_mean, {"centred": True, "side_information": True}),
            (noisy_sum_mean, {"neighbouring": "replace-one"}),
        ],
    )
    @pytest.mark.parametrize("budget", [{"epsilon": 0.9}, {"rho": 0.25}])
    def test_baseline_ledgers_sum_to_budget(self, func, kw, budget):
        est = func(uniform_sample(), bounds=(0, 100), rng=2, **kw, **budget)
        assert abs(est.ledger.total() - next(iter(budget.values()))) <= 2 * np.spacing(1.0)

    def test_sensitivity_table(self):
        assert simplex_sensitivity("add-remove", 3.0) == (3.0, 3.0)
        assert simplex_sensitivity("replace-one", 3.0) == (6.0, 3.0 * math.sqrt(2))


class TestPrivacy:
    """Spec §7.3 and an empirical check on worst-case neighbouring datasets."""

    def test_every_row_uses_the_whole_l1_budget(self):
        R, eps = 5.0, 0.8
        z = np.linspace(0, R, 101)
        y = simplex_transform(z[:, None], R)
        b = R / eps
        np.testing.assert_allclose(np.abs(y).sum(axis=1) / b, eps, rtol=1e-12)  # every y attains ε
        sigma = R / math.sqrt(2 * 0.3)
        loss = (y**2).sum(axis=1) / (2 * sigma**2)
        assert loss.max() == pytest.approx(0.3, rel=1e-12)
        assert np.all(loss[1:-1] < 0.3)  # only the vertices attain ρ
        assert loss.min() == pytest.approx(0.15, rel=1e-12)  # the middle uses half

    @pytest.mark.parametrize("rel", ["add-remove", "replace-one"])
    def test_worst_case_neighbours_exact_sensitivity(self, rel):
        """The noiseless augmented sums of worst-case neighbours differ by exactly (Δ1, Δ2)."""
        R = 4.0
        base = np.random.default_rng(3).uniform(0, R, 20)
        if rel == "add-remove":
            x, x2 = base, np.append(base, 0.0)  # add a vertex row (0, R)
        else:
            x, x2 = np.append(base, 0.0), np.append(base, R)  # swap vertex (0, R) for (R, 0)
        s = simplex_release(x, epsilon=1.0, bounds=(0, R), neighbouring=rel, rng=0).s
        s2 = simplex_release(x2, epsilon=1.0, bounds=(0, R), neighbouring=rel, rng=0).s
        d1, d2 = simplex_sensitivity(rel, R)
        assert np.abs(s - s2).sum() == pytest.approx(d1, rel=1e-12)
        assert np.linalg.norm(s - s2) == pytest.approx(d2, rel=1e-12)

    @pytest.mark.parametrize("rel", ["add-remove", "replace-one"])
    def test_empirical_privacy_loss(self, rel):
        """Privacy-loss random variable on worst-case neighbours, from real releases.

        Laplace: the log density ratio of the release at x and x' is bounded by ε everywhere, and
        outputs far on the x side attain it. Gaussian: the loss is N(ρ*, 2ρ*) with
        ρ* = ||s - s'||²/(2σ²) = ρ at worst case; its sample mean must match ρ within 5 SE.
        """
        R, eps, rho = 4.0, 0.5, 0.2
        base = np.random.default_rng(3).uniform(0, R, 20)
        if rel == "add-remove":
            x, x2 = base, np.append(base, 0.0)
        else:
            x, x2 = np.append(base, 0.0), np.append(base, R)
        lap = simplex_release(x, epsilon=eps, bounds=(0, R), neighbouring=rel, reps=50_000, rng=5)
        s2 = simplex_release(x2, epsilon=eps, bounds=(0, R), neighbouring=rel, rng=5).s
        loss = (np.abs(lap.m - s2).sum(axis=1) - np.abs(lap.m - lap.s).sum(axis=1)) / lap.scale
        assert loss.max() <= eps + 1e-9
        assert loss.max() > 0.99 * eps
        gau = simplex_release(x, rho=rho, bounds=(0, R), neighbouring=rel, reps=50_000, rng=6)
        g2 = simplex_release(x2, rho=rho, bounds=(0, R), neighbouring=rel, rng=6).s
        gl = (((gau.m - g2) ** 2).sum(axis=1) - ((gau.m - gau.s) ** 2).sum(axis=1)) / (
            2 * gau.scale**2
        )
        se = math.sqrt(2 * rho / 50_000)
        assert abs(gl.mean() - rho) < 5 * se
        assert gl.var() == pytest.approx(2 * rho, rel=var_tol(50_000, 3.0))

    def test_plugin_empirical_privacy_loss(self):
        """B2 (sum, count) on add/remove neighbours: Laplace loss <= ε_S + ε_N = ε."""
        from dpcore.estimators.simplex_baselines import add_noise

        R, eps = 4.0, 0.6
        base = np.random.default_rng(3).uniform(0, R, 20)
        v, v2 = np.array([base.sum(), 20.0]), np.array([base.sum() + R, 21.0])
        g = np.random.default_rng(7)
        ms, b_s = add_noise(v[:1], "laplace", R, eps / 2, 50_000, g)
        mc, b_c = add_noise(v[1:], "laplace", 1.0, eps / 2, 50_000, g)
        loss = (
            (np.abs(ms - v2[0]) - np.abs(ms - v[0])) / b_s
            + (np.abs(mc - v2[1]) - np.abs(mc - v[1])) / b_c
        )[:, 0]
        assert loss.max() <= eps + 1e-9 and loss.max() > 0.99 * eps


class TestPostProcessing:
    """Spec §7.4-7.7 with injected noise."""

    def setup_method(self):
        self.x = uniform_sample(50, 10.0, seed=1)
        self.R = 10.0
        data = preprocess(self.x, (0.0, self.R))
        self.s = simplex_transform(data.z, self.R).sum(axis=0)
        self.Z = np.random.default_rng(0).normal(0, 7.0, (1000, 2))
        self.m = self.s + self.Z

    def test_identities(self):
        N, R, Z = 50, self.R, self.Z
        np.testing.assert_allclose(free_count(self.m, R), N + Z.sum(axis=1) / R, rtol=1e-12)
        s3 = project_sums(self.m, N * R)
        np.testing.assert_allclose(s3[:, 0], self.s[0] + (Z[:, 0] - Z[:, 1]) / 2, rtol=1e-12)
        np.testing.assert_allclose(s3.sum(axis=1), N * R, rtol=1e-12)
        # S2 equals the centred form with e_s = (Z1 - Z2)/2, e_c = (Z1 + Z2)/R (spec §4)
        s2 = mean_from_sums(self.m[:, :1], free_count(self.m, R), np.zeros(1))[:, 0]
        es, ec = (Z[:, 0] - Z[:, 1]) / 2, Z.sum(axis=1) / R
        centred = R / 2 + (self.s[0] - N * R / 2 + es) / np.maximum(N + ec, 1)
        np.testing.assert_allclose(s2, centred, rtol=1e-12)

    def test_antithetic_exactness(self):
        N, R = 50, self.R
        plus = project_sums(self.s + self.Z, N * R)
        minus = project_sums(self.s - self.Z, N * R)
        np.testing.assert_allclose(
            plus + minus, np.broadcast_to(2 * self.s, plus.shape), rtol=1e-12
        )

    def test_translation_equivariance(self):
        c = 1234.5
        for known in (True, False):
            kw = {"known_n": known, "side_information": known, "rho": 0.5, "rng": 9}
            a = simplex_mean(self.x, bounds=(0, self.R), **kw).mean
            b = simplex_mean(self.x + c, bounds=(c, c + self.R), **kw).mean
            np.testing.assert_allclose(b - a, c, rtol=1e-9)
        # the plug-in on raw values is not translation invariant (spec §7.6)
        a = plugin_mean(self.x, rho=0.5, bounds=(0, self.R), shift=False, rng=9).mean
        b = plugin_mean(self.x + c, rho=0.5, bounds=(c, c + self.R), shift=False, rng=9).mean
        assert abs((b - a)[0] - c) > 1.0

    def test_extra_count_limits(self):
        n_hat = free_count(self.m, self.R)
        exact = np.full_like(n_hat, 50.0)
        n_star, _var, w = combine_counts(n_hat, 2.0, exact, 1e-12)
        assert 0 <= w <= 1 and w < 1e-10
        np.testing.assert_allclose(
            project_sums(self.m, self.R * n_star), project_sums(self.m, 50 * self.R), rtol=1e-9
        )
        n_star, _var, w = combine_counts(n_hat, 2.0, exact, 1e12)
        assert 0 <= w <= 1 and w > 1 - 1e-10
        np.testing.assert_allclose(n_star, n_hat, rtol=1e-9)
        assert extra_count_weight(rho=0.5, count_fraction=0.2) == pytest.approx(
            0.4 / (0.4 + 2 * 0.1)
        )
        est = simplex_mean(self.x, epsilon=1.0, bounds=(0, self.R), count_fraction=0.5, rng=0)
        assert est.diagnostics.weight == pytest.approx(1 / (1 + 2))


class TestInputs:
    def test_seeded_determinism(self):
        x = uniform_sample()
        a = simplex_mean(x, epsilon=1.0, bounds=(0, 100), rng=11).mean
        b = simplex_mean(x, epsilon=1.0, bounds=(0, 100), rng=11).mean
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(
            simplex_mean_draws(x, epsilon=1.0, bounds=(0, 100), reps=5, rng=3),
            simplex_mean_draws(x, epsilon=1.0, bounds=(0, 100), reps=5, rng=3),
        )

    @pytest.mark.parametrize(
        ("kwargs", "match"),
        [
            ({"epsilon": 0.0, "bounds": (0, 1)}, "epsilon"),
            ({"rho": -1.0, "bounds": (0, 1)}, "rho"),
            ({"epsilon": 1.0, "rho": 1.0, "bounds": (0, 1)}, "exactly one"),
            ({"epsilon": 1.0, "bounds": (1, 0)}, "inverted"),
            ({"epsilon": 1.0}, "bounds"),
            ({"epsilon": 1.0, "bounds": (0, 1), "radius": 0.0}, "radius"),
            ({"epsilon": 1.0, "bounds": (0, 1), "neighbouring": "replace-one"}, "known_n=True"),
            ({"epsilon": 1.0, "bounds": (0, 1), "neighbouring": "swap"}, "neighbouring"),
            ({"epsilon": 1.0, "bounds": (0, 1), "count_fraction": 1.0}, "count_fraction"),
            (
                {"epsilon": 1.0, "bounds": (0, 1), "known_n": True, "count_fraction": 0.2},
                "count_fraction",
            ),
        ],
    )
    def test_bad_input(self, kwargs, match):
        with pytest.raises(ValueError, match=match):
            simplex_mean(np.array([0.2, 0.4]), **kwargs)

    def test_nan_rejected(self):
        with pytest.raises(ValueError, match="NaN"):
            simplex_mean(np.array([0.2, np.nan]), epsilon=1.0, bounds=(0, 1))

    def test_single_row_and_floored_count(self):
        est = simplex_mean(
            np.array([0.5]), rho=1e-4, bounds=(0, 1), rng=0
        )  # noisy count may be < 1
        assert np.isfinite(est.mean).all()
        assert est.diagnostics.mean_clamped[0] >= 0.0


class TestRegistry:
    def test_all_variants_registered(self):
        names = {s.name: s for s in all_estimators()}
        expected = {
            "simplex_laplace": ("pure", "add-remove"),
            "simplex_gauss": ("zcdp", "add-remove"),
            "simplex_known_n_laplace_replace": ("pure", "replace-one"),
            "simplex_known_n_gauss_replace": ("zcdp", "replace-one"),
            "sum_known_n_laplace_replace": ("pure", "replace-one"),
            "sum_known_n_gauss_replace": ("zcdp", "replace-one"),
            "centred_sum_known_n_laplace": ("pure", "replace-one"),
            "centred_sum_known_n_gauss": ("zcdp", "replace-one"),
            "plugin_laplace": ("pure", "add-remove"),
            "plugin_gauss": ("zcdp", "add-remove"),
            "centred_plugin_laplace": ("pure", "add-remove"),
            "centred_plugin_gauss": ("zcdp", "add-remove"),
            "resize_laplace": ("pure", "add-remove"),
            "resize_gauss": ("zcdp", "add-remove"),
            "noisy_sum_count_equal_scale_laplace": ("pure", "add-remove"),
            "noisy_sum_count_equal_scale_gauss": ("zcdp", "add-remove"),
        }
        for name, (notion, rel) in expected.items():
            spec = names[name]
            assert (spec.notion, spec.neighbouring) == (notion, rel), name
            assert "bounded" in spec.data_kinds
            assert getattr(spec.func, "neighbouring", rel) == rel

    @pytest.mark.parametrize(
        "name",
        [
            "simplex_laplace",
            "simplex_known_n_gauss_replace",
            "plugin_gauss",
            "resize_laplace",
            "centred_plugin_gauss",
            "noisy_sum_count_equal_scale_laplace",
        ],
    )
    def test_run_on_dataset(self, name):
        ds = generate("bounded", n=300, d=2, rng=0)
        budget = Budget.pure(1.0) if get(name).notion == "pure" else Budget.zcdp(0.5)
        est = get(name).run(ds, budget, rng=0)
        assert est.mean.shape == (2,)
        assert est.diagnostics.noiseless_mean.shape == (2,)
        np.testing.assert_allclose(est.diagnostics.noiseless_mean, ds.x.mean(axis=0), atol=0.02)
