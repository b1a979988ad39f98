"""Every registered estimator has an explicit place in lists and a short name defined in words.

The order of :func:`dpcore.registry.all_estimators` comes from each spec's ``order``, never from
the order in which the estimator modules happen to be imported; a short ``label`` is what legends
show, the full ``detail`` is what hover text and the glossary show.
"""

import dataclasses
import json
import re
import subprocess
import sys

import pytest

from dpcore import estimate, registry
from dpcore.glossary import define


def test_orders_are_set_unique_and_give_the_list_order():
    specs = registry.all_estimators()
    orders = [s.order for s in specs]
    assert None not in orders
    assert len(set(orders)) == len(orders), "two estimators share an order"
    assert orders == sorted(orders)  # type: ignore[type-var]


_IMPORT_IN_ORDER = """
import importlib, json, pkgutil, sys
import dpcore.estimators as pkg
names = sorted(m.name for m in pkgutil.iter_modules(pkg.__path__))
for name in (reversed(names) if sys.argv[1] == "reverse" else names):
    importlib.import_module(f"dpcore.estimators.{name}")
from dpcore import estimate, registry
print(json.dumps([list(estimate._REGISTRY), [s.name for s in registry.all_estimators()]]))
"""


def test_the_list_order_does_not_depend_on_the_import_order():
    out = {}
    for how in ("forward", "reverse"):
        run = subprocess.run(
            [sys.executable, "-c", _IMPORT_IN_ORDER, how],
            capture_output=True,
            text=True,
            check=True,
        )
        out[how] = json.loads(run.stdout)
    registered = {how: reg for how, (reg, _) in out.items()}
    listed = {how: shown for how, (_, shown) in out.items()}
    # the two imports really register in different orders ...
    assert registered["forward"] != registered["reverse"]
    # ... and the list is the same, and the one this process sees
    assert listed["forward"] == listed["reverse"] == [s.name for s in registry.all_estimators()]


@pytest.fixture
def scratch_registry():
    """The registry as it is, restored after the test (register() writes to it)."""
    registry.all_estimators()
    saved = dict(estimate._REGISTRY)
    yield registry.get("empirical")
    estimate._REGISTRY.clear()
    estimate._REGISTRY.update(saved)


def test_register_refuses_a_taken_or_missing_order_and_a_long_label(scratch_registry):
    base = scratch_registry
    with pytest.raises(ValueError, match="order=100 is already 'empirical'"):
        estimate.register(dataclasses.replace(base, name="copy", order=base.order))
    with pytest.raises(ValueError, match="needs order="):
        estimate.register(dataclasses.replace(base, name="copy", order=None))
    long = "Empirical mean of every row, not private"
    with pytest.raises(ValueError, match="put the rest in detail="):
        estimate.register(dataclasses.replace(base, name="copy", order=1, label=long))
    estimate.register(dataclasses.replace(base, name="copy", order=1))
    assert registry.all_estimators()[0].name == "copy"  # order 1 sorts before 100


def test_labels_are_short_unique_and_details_say_more():
    specs = registry.all_estimators()
    labels = [s.label for s in specs]
    assert len(set(labels)) == len(labels)
    for s in specs:
        assert 0 < len(s.label) <= estimate.LABEL_MAX, s.name
        assert s.detail and len(s.detail) >= len(s.label), s.name


_MARKER = {"(ε)": "pure", "(ρ)": "zcdp"}


def test_a_notion_marker_in_a_label_is_the_estimators_notion():
    marked = [s for s in registry.all_estimators() if s.label.endswith(tuple(_MARKER))]
    assert len(marked) >= 20
    for s in marked:
        assert s.notion == _MARKER[s.label[-3:]], (s.name, s.label, s.notion)


def _abbreviations(label: str) -> list[str]:
    """Words of a label a reader may not know: two capitals or more (PLAN, PureDPPDE, OpenDP),
    an ampersand (S&A) or a -style suffix (KLSU-style), and the notion marker."""
    words = [w for w in re.split(r"[\s,/()]+", label) if w]
    out = [w for w in words if sum(c.isupper() for c in w) >= 2 or "&" in w or "-style" in w]
    return out + [m for m in _MARKER if label.endswith(m)]


def test_every_abbreviation_in_a_label_is_in_the_glossary():
    for s in registry.all_estimators():
        for word in _abbreviations(s.label):
            assert len(define(word)) > 40, (s.name, word)
    assert _abbreviations("S&A PMWM (ρ)") == ["S&A", "PMWM", "(ρ)"]
