"""The registry: every estimator declares its notion, relation and colour, and runs on its data."""

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
        if spec.name == "plan_as_published":  # the authors' tripled-data centre: 9 x its 0.0625 share
            native *= 1.0 + 8 * 0.0625
        assert est.ledger.total() == pytest.approx(native, rel=1e-12, abs=0), spec.name


def test_same_seed_same_estimate():
    ds = generate("gaussian", 300, 3, rng=0)
    for spec in registry.applicable("real", 3):
        a = spec.run(ds, Budget.pure(1.0), rng=7).mean
        b = spec.run(ds, Budget.pure(1.0), rng=7).mean
        np.testing.assert_array_equal(a, b, err_msg=spec.name)


def test_unknown_estimator_message():
    with pytest.raises(ValueError, match="unknown estimator"):
        registry.get("nope")
