"""Every public keyword of every registered estimator, given a value of the wrong kind (NaN,
infinity, a negative number, zero, text, a list, None, a flag, an integer beyond float range),
either runs to a finite mean or is refused with a ``ValueError``/``TypeError`` that names the
keyword: dpcore's message, never Python's ("'float' object is not iterable", "cannot convert float
NaN to integer", "int too large to convert to float")."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from dpcore import registry
from dpcore.privacy import Budget

VALUES = {
    "nan": float("nan"),
    "inf": float("inf"),
    "-1": -1,
    "0": 0,
    "text": "text",
    "list": [1, 2],
    "None": None,
    "True": True,
    "1e400": 10**400,
}


def _data(spec: registry.EstimatorSpec) -> np.ndarray:
    x = np.random.default_rng(0).random((60, 3))
    return (x < 0.3).astype(float) if spec.data_kinds == {"binary"} else x


def _outcome(spec: registry.EstimatorSpec, keyword: str, value: object) -> str | None:
    """``None`` when the case is fine, else what went wrong."""
    budget = Budget.zcdp(0.5) if spec.notion == "zcdp" else Budget.pure(1.0)
    public = spec.public_keywords()
    extra: dict[str, object] = {}
    if keyword != "bounds" and "bounds" in public:
        extra["bounds"] = (0.0, 1.0)
    if keyword != "sigma" and "sigma" in public and "oracle" in spec.name:
        extra["sigma"] = np.ones(3)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = registry.run(spec.name, _data(spec), budget, rng=0, **extra, **{keyword: value})
    except (ValueError, TypeError) as err:
        if re.search(rf"(?<![A-Za-z_]){re.escape(keyword)}(?![A-Za-z_])", str(err)):
            return None
        return f"{type(err).__name__} without the name: {err}"
    except Exception as err:  # noqa: BLE001 - the failure reported
        return f"{type(err).__name__}: {err}"
    if not np.all(np.isfinite(np.asarray(est.mean, dtype=float))):
        return "a non-finite mean"
    return None


CASES = [
    (spec.name, kw) for spec in registry.all_estimators() for kw in sorted(spec.public_keywords())
]


@pytest.mark.parametrize(("name", "keyword"), CASES)
def test_wrong_values_get_dpcores_message(name: str, keyword: str) -> None:
    spec = registry.get(name)
    bad = {label: why for label, v in VALUES.items() if (why := _outcome(spec, keyword, v))}
    assert not bad, f"{name}({keyword}=...): {bad}"


def test_every_entry_has_cases() -> None:
    assert {name for name, _ in CASES} >= {"plan", "iome_paper", "sa_pmwm_zcdp", "pmwm"}
    assert len(CASES) >= 200


def test_the_two_reported_cases() -> None:
    x = np.random.default_rng(0).random((60, 3))
    with pytest.raises(ValueError, match="budget_split"):
        registry.run("gaussian_private", x, Budget.zcdp(0.5), budget_split=float("nan"))
    with pytest.raises(ValueError, match="pairs_per_group"):
        registry.run("plan", x, Budget.zcdp(0.5), bounds=(0, 1), pairs_per_group=float("nan"))
    with pytest.raises(ValueError, match="group_size"):
        registry.run("sa_pmwm_zcdp", x, Budget.zcdp(0.5), bounds=(0, 1), group_size=float("nan"))
