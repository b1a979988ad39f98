"""PLAN and IOME as typed stages: frozen results, no shared mutable run state, no import cycle
between a spec and its runner, and the family defaults are specs (docs/architecture.md)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

import numpy as np
import pytest

from dpcore import mechanisms
from dpcore.data import generate
from dpcore.estimators import iome as I
from dpcore.estimators import plan as P
from dpcore.privacy import Ledger

ROOT = Path(__file__).resolve().parents[2] / "dpcore" / "estimators"
RESULTS = [
    P.StageBudgets,
    P.Frequencies,
    P.Centre,
    P.Scale,
    P.Threshold,
    P.Release,
    P.PlanCore,
    I.Rotated,
    I.Radius,
    I.Noise,
]


@pytest.mark.parametrize("cls", RESULTS, ids=lambda c: c.__name__)
def test_every_stage_result_is_a_frozen_dataclass(cls) -> None:
    assert dataclasses.is_dataclass(cls)
    assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


def _imports(path: Path) -> set[str]:
    """Every module a file imports, including under ``if TYPE_CHECKING:``."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


@pytest.mark.parametrize("family", ["plan", "iome"])
def test_no_stage_or_runner_imports_the_spec(family: str) -> None:
    spec_module = f"dpcore.estimators.{family}.spec"
    package = f"dpcore.estimators.{family}"
    for path in sorted((ROOT / family).glob("*.py")):
        if path.stem in {"__init__", "spec", "variants"}:
            continue
        imported = _imports(path)
        assert spec_module not in imported, path.name
        assert package not in imported, path.name  # not the package (it imports the spec)


def test_no_mutable_run_bag_is_left() -> None:
    assert not hasattr(P, "PlanRun")
    for path in (ROOT / "plan").glob("*.py"):
        src = path.read_text()
        assert ".extra[" not in src and "warnings.append" not in src, path.name
    for path in (ROOT / "iome").glob("*.py"):
        assert "warnings_.append" not in path.read_text(), path.name


def test_iome_stages_leave_their_inputs_as_they_were() -> None:
    ds = generate("gaussian", 200, 6, 1.0, rng=0)
    g, ledger = mechanisms.generator(3), Ledger("zcdp")
    spec = I.iome_paper.checked()
    budgets = I.stage_budgets(0.5, spec)
    rot = I.rotate(ds.x, ds.bounds[0], ds.bounds[1], spec, g)
    before = rot.xr.copy()
    c = I.centre(rot, spec, budgets["center"], ledger, g)
    rad = I.radius(rot, c, spec, budgets, ledger, g)
    np.testing.assert_array_equal(rot.xr, before)  # the radius centres blocks, not rot.xr
    want = np.linalg.norm(before - c, axis=1)  # xr holds one rotated row per person
    np.testing.assert_allclose(rad.norms, want, rtol=1e-14, atol=0)
    out = I.noise(rot, c, rad, budgets["noise"], ledger, g)
    np.testing.assert_array_equal(rot.xr, before)
    assert ledger.total() == pytest.approx(0.5, rel=1e-12) and out.tau > 0


def test_plan_stages_compose_to_run_plan() -> None:
    # the stages called by hand, in run_plan's order and with its generator, give its estimate
    ds = generate("gaussian", 300, 5, 1.0, rng=1)
    lo, hi = ds.bounds
    spec = P.plan_l2.resolved()
    g, ledger = mechanisms.generator(7), Ledger("zcdp")
    budget = P.stage_budgets(spec, 300, 5, 0.5)
    first = P.recenter(ds.x, lo, hi, spec, budget, None, ledger, g)
    assert first is None  # CoinPress runs after the variances
    raw = P.estimate_variances(
        ds.x, lo, hi, spec, budget.budgets["variance"], None, None, ledger, g
    )
    sc = P.scale(raw, spec)
    centre = P.recenter_scaled(ds.x, lo, hi, sc, spec, budget, ledger, g)
    thr = P.threshold(ds.x, lo, hi, centre.mu, sc, spec, budget.budgets["radius"], ledger, g)
    out = P.release(
        ds.x, centre.mu, sc.s, thr.radius, thr.norms, budget.budgets["noise"], ledger, g
    )
    est = P.plan_l2(ds.x, rho=0.5, bounds=ds.bounds, rng=7)
    np.testing.assert_array_equal(out.mean, est.mean)
    assert ledger.total() == pytest.approx(est.ledger.total(), rel=1e-15)
    warnings = [*centre.warnings, *thr.warnings, *out.warnings]
    assert est.diagnostics.warnings == warnings


@pytest.mark.parametrize(
    ("default", "cls"), [(P.plan, P.PlanSpec), (I.iome, I.IomeSpec)], ids=["plan", "iome"]
)
def test_the_family_default_is_a_spec_with_every_option_free(default, cls) -> None:
    assert isinstance(default, cls) and default.fixed == ()
    sig = inspect.signature(default)
    for f in dataclasses.fields(cls):
        if f.name in ("name", "fixed"):
            continue
        assert sig.parameters[f.name].default == getattr(default, f.name)  # from the fields
    assert not inspect.isfunction(default)


def test_every_variant_is_a_replace_of_the_family_default() -> None:
    for spec in (P.plan_l2, P.plan_binary, P.plan_oracle, P.plan_noscale, P.plan_equal_split):
        changed = {
            f.name
            for f in dataclasses.fields(spec)
            if f.compare and getattr(spec, f.name) != getattr(P.plan, f.name)
        }
        assert changed <= {"variances", "p", "scale_exponent"}, spec.name
    assert I.iome_original == dataclasses.replace(
        I.iome, steps=10, radius_share=0.25, offset_factor=1.0
    )
