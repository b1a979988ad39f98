"""One way to declare an estimator variant: an options record, a family's defaults, a cost entry.

Every registered estimator is called through a frozen options record
(:class:`dpcore.estimators._options.EstimatorOptions`), declares its entry in the run-time model
(``spec.cost``; registering one without it is an error naming the fix, never a silent default), and
the pre-run warnings the experiment pages show come from the specs, not from a list of names.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dpcore import registry
from dpcore.estimate import _REGISTRY, Cost, EstimatorSpec, register, units_of
from dpcore.estimators._options import EstimatorOptions, Family
from dpcore.experiments import ExperimentConfig
from dpcore.experiments.cost import seconds_per_run
from dpcore.experiments.progressive import before_run_warning


def test_every_registered_estimator_is_an_options_record_with_a_cost_entry() -> None:
    for spec in registry.all_estimators():
        assert isinstance(spec.cost, Cost), f"{spec.name}: no cost entry"
        assert isinstance(spec.func, EstimatorOptions), (
            f"{spec.name}: declare the variant as a frozen options record (EstimatorOptions)"
        )
        assert dataclasses.is_dataclass(spec.func) and spec.func.__dataclass_params__.frozen
        assert not spec.params, f"{spec.name}: options belong on the record, not in params="


def test_units_and_relations_follow_from_notion_and_neighbouring() -> None:
    for spec in registry.all_estimators():
        assert spec.units == units_of(spec.notion), spec.name
        assert spec.relations == frozenset({spec.neighbouring}), spec.name


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Halve(EstimatorOptions):
    """A test estimator: half the sample mean (not private)."""

    notion = "none"

    def run(self, x: object, *, rng: object, bounds: object = None) -> object:
        raise NotImplementedError


def _spec(**more: object) -> EstimatorSpec:
    fields: dict = {
        "name": "test_no_cost",
        "label": "Test",
        "color": "#000000",
        "notion": "none",
        "data_kinds": frozenset({"real"}),
        "neighbouring": "none",
        "func": _Halve(name="halve"),
        "order": 99_990,
    }
    fields.update(more)
    return EstimatorSpec(**fields)


def test_registering_an_estimator_without_a_cost_entry_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"test_no_cost: .*needs cost=Cost"):
        register(_spec())
    assert "test_no_cost" not in _REGISTRY


def test_a_family_without_a_cost_cannot_be_declared() -> None:
    with pytest.raises(TypeError, match="cost"):
        Family(family="test", data_kinds=frozenset({"real"}))  # type: ignore[call-arg]


def test_the_cost_model_reads_the_spec_and_refuses_an_unknown_name() -> None:
    spec = registry.get("pmwm")
    assert spec.cost == Cost(per_value_us=0.8, overhead_ms=35.0)
    small, large = seconds_per_run("pmwm", 100, 1), seconds_per_run("pmwm", 100_100, 1)
    assert large - small == pytest.approx(0.25 * spec.cost.per_value_us * 1e-6 * 100_000)
    with pytest.raises(ValueError, match="unknown estimator"):
        seconds_per_run("no_such_estimator", 100, 1)


def test_the_pre_run_warning_comes_from_the_spec() -> None:
    said: list[tuple[int, int, float, float]] = []

    def warn(n: int, d: int, rho: float, width: float) -> str | None:
        said.append((n, d, rho, width))
        return "a test warning"

    spec = _spec(
        name="test_warns", cost=Cost(per_value_us=0.1, overhead_ms=1.0), prerun_warning=warn
    )
    register(spec)
    try:
        cfg = ExperimentConfig(
            distribution="gaussian",
            n=500,
            d=4,
            budget=0.5,
            estimators=["test_warns"],
            repetitions=2,
        )
        assert before_run_warning(cfg) == "a test warning"
        assert said and said[0][:3] == (500, 4, 0.5) and np.isfinite(said[0][3])
        pure = ExperimentConfig(**{**cfg.to_dict(), "unit": "eps"})
        assert before_run_warning(pure) is None  # a zCDP-budget warning
    finally:
        _REGISTRY.pop("test_warns", None)
    assert {s.name for s in registry.all_estimators() if s.prerun_warning} == {
        "plan",
        "plan_noscale",
        "plan_equal_split",
    }


def test_every_family_registers_through_its_family_record():
    """One way to register: ``Family.register`` (units and relations follow from the notion and
    the relation); no estimator module builds an ``EstimatorSpec`` by hand."""
    from pathlib import Path

    import dpcore

    root = Path(dpcore.__file__).parent / "estimators"
    by_hand = [
        str(p.relative_to(root))
        for p in sorted(root.rglob("*.py"))
        if p.name != "_options.py" and "EstimatorSpec(" in p.read_text(encoding="utf-8")
    ]
    assert not by_hand, by_hand


def test_a_replaced_options_record_builds_its_signature_only_when_read() -> None:
    """A run replaces options for each call that changes one; the copy's signature is made on
    first use (the same one an eager build gives) and is not made for copies nobody inspects."""
    import inspect

    spec = registry.get("plan").func
    copy = dataclasses.replace(spec, steps=7)
    assert "__signature__" not in vars(copy)
    sig = inspect.signature(copy)
    assert sig == copy._signature()
    assert sig.parameters["steps"].default == 7
    assert vars(copy)["__signature__"] is sig
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        copy.nothing_here  # noqa: B018
    assert "steps" in inspect.signature(type(spec)).parameters  # the class: its dataclass fields
