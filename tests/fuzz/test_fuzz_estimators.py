"""Fuzz every registered estimator: random shapes, bounds, budgets and data (huge and tiny finite
values, NaN, inf). The only acceptable outcomes are a finite mean of the right shape or a clear
``ValueError``/``TypeError``."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcore import registry
from dpcore.privacy import Budget
from tests.fuzz._outcome import assert_finite_mean, outcome
from tests.fuzz.conftest import FUZZ

SPECS = registry.all_estimators()


@dataclass
class _Data:
    x: Any
    bounds: Any
    true_std: Any = None


def _budget(notion: str, value: float, delta: float) -> Budget:
    return {
        "pure": lambda: Budget.pure(value),
        "zcdp": lambda: Budget.zcdp(value),
        "approx": lambda: Budget.approx(value, delta),
    }[notion]()


@st.composite
def cases(draw: st.DrawFn, spec: registry.EstimatorSpec) -> tuple[_Data, Budget | None, int | None]:
    n = draw(st.integers(1, 40))
    d = 1 if spec.needs_dimension == "scalar" else draw(st.integers(1, 6))
    one_d = d == 1 and draw(st.booleans())
    scale_exp = (
        draw(st.integers(-120, 120)) if draw(st.integers(0, 3)) == 0 else draw(st.integers(-3, 3))
    )
    scale = 10.0**scale_exp
    centre = draw(st.sampled_from([0.0, 0.0, scale, -scale, 1e300, 1.7e308]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if "binary" in spec.data_kinds and draw(st.booleans()):
        x = rng.integers(0, 2, (n, d)).astype(float)
        lo, hi = 0.0, 1.0
    else:
        x = centre + scale * rng.normal(size=(n, d))
        lo, hi = centre - 4 * scale, centre + 4 * scale
    special = draw(st.sampled_from(["none"] * 6 + ["nan", "inf", "huge", "tiny"]))
    if special != "none":
        i, j = rng.integers(0, n), rng.integers(0, d)
        x[i, j] = {"nan": np.nan, "inf": np.inf, "huge": 1.7e308, "tiny": 5e-324}[special]
    bounds_kind = draw(
        st.sampled_from(["data", "data", "data", "none", "inverted", "huge", "tiny"])
    )
    bounds = {
        "data": (lo, hi),
        "none": None,
        "inverted": (hi, lo),
        "huge": (-1e155, 1e155),
        "tiny": (-1e-300, 1e-300),
    }[bounds_kind]
    sigma = np.full(d, abs(scale)) if draw(st.booleans()) else None
    notion = draw(st.sampled_from(["pure", "zcdp", "approx"]))
    value = 10.0 ** draw(st.floats(-14, 3))
    delta = 10.0 ** draw(st.floats(-120, -0.01))
    try:
        budget = _budget(notion, value, delta)
    except ValueError:
        budget = None  # out of dpcore.limits' budget ranges: a clear refusal, checked in test_fuzz_budgets
    data = _Data(x[:, 0] if one_d else x, bounds, sigma)
    return data, budget, (None if one_d else d)


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_estimator_gives_finite_mean_or_clear_error(
    spec: registry.EstimatorSpec, case_counter
) -> None:
    @FUZZ
    @given(cases(spec))
    def check(case: tuple[_Data, Budget | None, int | None]) -> None:
        case_counter()
        data, budget, d = case
        if budget is None:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kind, value = outcome(lambda: spec.run(data, budget, rng=0))
        if kind == "ok":
            assert_finite_mean(value.mean, d if d is not None else 1)

    check()
