"""The registry: every estimator declares its notion, relation and colour, and runs on its data."""

import dataclasses

import numpy as np
import pytest

from dpcore import registry
from dpcore.data import DISTRIBUTIONS, generate
from dpcore.privacy import Budget


def test_every_entry_is_complete_and_colours_are_unique():
    specs = registry.all_estimators()
    names = [s.name for s in specs]
    assert {"empirical", "gaussian_public"} <= set(names)
    assert len(set(names)) == len(names)
    colours = [s.color for s in specs]
    assert len(set(colours)) == len(colours), "each estimator keeps one colour everywhere"
    for s in specs:
        assert s.notion in ("pure", "zcdp", "none")
        assert s.neighbouring in ("replace-one", "add-remove", "none")
        assert s.data_kinds <= {"real", "bounded", "binary"} and s.data_kinds
        assert s.label and s.color.startswith("#")


@pytest.mark.parametrize("kind", sorted({d.kind for d in DISTRIBUTIONS.values()}))
def test_every_applicable_estimator_runs_and_spends_exactly_its_budget(kind):
    name = next(k for k, v in DISTRIBUTIONS.items() if v.kind == kind)
    ds = generate(name, 600, 4, rng=0)
    budget = Budget.zcdp(0.5)
    for spec in registry.applicable(kind, ds.d):
        est = spec.run(ds, budget, rng=1)
        assert est.mean.shape == (ds.d,), spec.name
        assert np.all(np.isfinite(est.mean)), spec.name
        assert est.estimator == spec.name
        assert est.diagnostics.noiseless_mean.shape == (ds.d,), spec.name
        native = budget.to_native(spec.notion).value
        if (
            spec.name == "plan_as_published"
        ):  # the authors' tripled-data centre: 9 x its 0.0625 share
            native *= 1.0 + 8 * 0.0625
        assert est.ledger.total() == pytest.approx(native, rel=1e-12, abs=0), spec.name


def test_same_seed_same_estimate():
    ds = generate("gaussian", 300, 3, rng=0)
    for spec in registry.applicable("real", 3):
        a = spec.run(ds, Budget.approx(1.0, 1e-6), rng=7).mean
        b = spec.run(ds, Budget.approx(1.0, 1e-6), rng=7).mean
        np.testing.assert_array_equal(a, b, err_msg=spec.name)


def test_unknown_estimator_message():
    with pytest.raises(ValueError, match="unknown estimator"):
        registry.get("nope")


def test_gaussian_public_under_a_pure_budget_is_refused_or_labelled() -> None:
    """gaussian_public under Budget.pure(1) must not run at rho = 1/2 as if that were eps = 1
    (likelihood ratio ~7 on neighbours against e^1 allowed). It is refused; run at the
    implied level it is labelled as not meeting the budget."""
    spec = registry.get("gaussian_public")
    ds = generate("gaussian", 300, 3, rng=0)
    assert spec.notion == "zcdp" and not spec.meets(Budget.pure(1.0))
    with pytest.raises(ValueError, match="cannot be met by a zCDP estimator"):
        spec.run(ds, Budget.pure(1.0), rng=0)
    est = spec.run(ds, Budget.pure(1.0), rng=0, at_implied_level=True)
    assert est.conversion is not None and est.conversion.meets_budget is False
    assert est.ledger.total() == pytest.approx(0.5)
    # pure estimators and valid budgets are unaffected
    assert registry.get("pmwm").run(ds, Budget.pure(1.0), rng=0).conversion.meets_budget
    assert spec.run(ds, Budget.approx(1.0, 1e-6), rng=0).conversion.meets_budget


def test_batched_path_is_declared_by_the_spec():
    """The registry says which estimators have a batched path: exactly the simplex family
    and its baselines, and a batched draw has the shape (reps, d)."""
    import numpy as np

    from dpcore import registry as R

    with_batch = {s.name for s in R.all_estimators() if s.batched is not None}
    families = {R.get(n).family for n in with_batch}
    assert families == {"simplex", "simplex baseline"}
    spec = R.get("plugin_laplace")
    x = np.random.default_rng(0).uniform(0, 1, (200, 3))
    draws = spec.batched(x, epsilon=1.0, bounds=(0, 1), reps=7, rng=0)
    assert draws.shape == (7, 3)


def _data_for(spec: registry.EstimatorSpec):
    kind = sorted(spec.data_kinds)[0]  # "binary" < "bounded" < "real"
    name = next(k for k, v in DISTRIBUTIONS.items() if v.kind == kind)
    return generate(name, 300, 2, rng=0)


@pytest.mark.parametrize("spec", registry.all_estimators(), ids=lambda s: s.name)
def test_declared_units_and_relations_are_what_run_accepts(spec: registry.EstimatorSpec) -> None:
    """Every estimator declares its budget units and neighbouring relations, and ``run``
    accepts exactly those: a budget in each declared unit runs, one in any other unit (only the
    pure ε unit for a zCDP estimator) and any undeclared relation raise ``ValueError``."""
    assert spec.units and spec.units <= {"eps", "eps_delta", "rho"}
    assert spec.relations and spec.neighbouring in spec.relations
    # the declaration follows the notion: nothing turns zCDP into pure ε-DP
    expected = {"eps_delta", "rho"} if spec.notion == "zcdp" else {"eps", "eps_delta", "rho"}
    assert spec.units == expected, spec.name
    ds = _data_for(spec)
    for unit in ("eps", "eps_delta", "rho"):
        budget = Budget.from_unit(unit, 1.0)
        if unit in spec.units:
            est = spec.run(ds, budget, rng=0, relation=spec.neighbouring)
            # an overspender ("as published") never meets the budget it is given
            assert est.conversion is not None
            assert est.conversion.meets_budget is (spec.spend_factor == 1.0), spec.name
        else:
            with pytest.raises(ValueError, match="zCDP"):
                spec.run(ds, budget, rng=0)
    for relation in {"replace-one", "add-remove", "none"} - spec.relations:
        with pytest.raises(ValueError, match="neighbours"):
            spec.run(ds, Budget.from_unit(sorted(spec.units)[0], 1.0), rng=0, relation=relation)


def test_a_spec_must_declare_consistent_units_and_relations() -> None:
    base = registry.get("gaussian_public")
    with pytest.raises(ValueError, match="units"):
        dataclasses.replace(base, units=frozenset({"eps", "rho"}))  # zCDP cannot meet pure ε
    with pytest.raises(ValueError, match="relations"):
        dataclasses.replace(base, relations=frozenset({"add-remove"}))


def test_default_selection_is_declared_by_the_specs() -> None:
    """The pages' default selection comes from each spec's ``default``, with the lists
    the pages showed before (the ``"pmwm*"`` placeholder is gone)."""
    from dpcore.experiments import default_estimators

    expected = {
        ("real", "rho"): ["empirical", "plan", "iome_paper", "gaussian_private", "pmwm_zcdp"],
        ("bounded", "rho"): [
            "empirical",
            "plan",
            "iome_paper",
            "gaussian_private",
            "pmwm_zcdp",
            "simplex_known_n_gauss_replace",
        ],
        ("binary", "rho"): [
            "empirical",
            "plan_l1",
            "iome_paper",
            "binary_pde",
            "binary_klsu_zcdp",
            "gaussian_private",
        ],
        ("real", "eps"): ["empirical", "pmwm", "clipped_laplace"],
        ("bounded", "eps"): [
            "empirical",
            "pmwm",
            "clipped_laplace",
            "simplex_laplace",
            "simplex_known_n_laplace_replace",
        ],
        ("binary", "eps"): [
            "empirical",
            "binary_pde",
            "binary_naive_laplace",
            "binary_truncated_laplace",
        ],
    }
    for (kind, unit), names in expected.items():
        assert default_estimators(kind, unit, 8) == names, (kind, unit)
        assert default_estimators(kind, "eps_delta" if unit == "rho" else unit, 8) == names
        for n in names:
            spec = registry.get(n)
            assert spec.default is not None and spec.is_default(kind, unit)
            assert unit in spec.units and kind in spec.data_kinds
