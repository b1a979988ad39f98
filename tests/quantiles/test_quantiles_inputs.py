"""Tests for dpcore.quantiles on bad input (Hypothesis): every routine refuses it with a
ValueError, and stays inside its bounds on good input; binary search's column blocks release the
same counts as one pass.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.quantiles import binary_search as QB
from dpcore.quantiles import (
    binary_search_quantile,
    exponential_quantile,
    grid_size,
    unbounded_quantile,
)
from tests.quantiles._quantiles import KINDS, _call

# ----------------------------------------------------------------------------------------------
# bad input (Hypothesis)
# ----------------------------------------------------------------------------------------------

CALLS = {
    "binary": lambda x, q, b, budget: binary_search_quantile(x, q, b, rho=budget, steps=5, rng=0),
    "em": lambda x, q, b, budget: exponential_quantile(x, q, b, epsilon=budget, rng=0),
    "em_rho": lambda x, q, b, budget: exponential_quantile(x, q, b, rho=budget, rng=0),
    "uq": lambda x, q, b, budget: unbounded_quantile(
        x, q, b, epsilon_threshold=budget, epsilon_query=1.0, beta=1.1, rng=0
    ),
    "uq_query": lambda x, q, b, budget: unbounded_quantile(
        x, q, b, rho_threshold=1.0, rho_query=budget, beta=1.1, rng=0
    ),
}
BUDGET_NAME = {
    "binary": "rho",
    "em": "epsilon",
    "em_rho": "rho",
    "uq": "epsilon_threshold",
    "uq_query": "rho_query",
}
FAST = settings(max_examples=25, deadline=None)
kinds = st.sampled_from(sorted(CALLS))
good_data = st.lists(st.floats(-100, 100, allow_nan=False), min_size=2, max_size=12).map(np.array)


@FAST
@given(
    kind=kinds,
    data=good_data,
    idx=st.integers(0, 11),
    bad=st.sampled_from([np.nan, np.inf, -np.inf]),
)
def test_nan_or_inf_in_x_raises(kind, data, idx, bad):
    x = data.copy()
    x[idx % x.size] = bad
    with pytest.raises(ValueError, match="x contains"):
        CALLS[kind](x, 0.5, (-100, 100), 1.0)


@FAST
@given(
    kind=kinds,
    q=st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.just(float("nan"))),
)
def test_q_outside_open_unit_interval_raises(kind, q):
    with pytest.raises(ValueError, match="q must be"):
        CALLS[kind](np.arange(5.0), q, (-10, 10), 1.0)


@FAST
@given(kind=kinds, lo=st.floats(-1e6, 1e6), gap=st.floats(0, 1e6))
def test_inverted_or_empty_bounds_raise(kind, lo, gap):
    with pytest.raises(ValueError, match="bounds"):
        CALLS[kind](np.arange(5.0), 0.5, (lo, lo - gap), 1.0)


@FAST
@given(
    kind=kinds,
    budget=st.one_of(st.floats(max_value=0.0), st.sampled_from([float("nan"), float("inf")])),
)
def test_non_positive_budget_raises(kind, budget):
    with pytest.raises(ValueError, match=BUDGET_NAME[kind]):
        CALLS[kind](np.arange(5.0), 0.5, (-10, 10), budget)


@FAST
@given(kind=kinds, shape=st.sampled_from([(), (2, 2, 2), (1, 3, 1, 2)]))
def test_wrong_ndim_raises(kind, shape):
    with pytest.raises(ValueError, match="x must be"):
        CALLS[kind](np.zeros(shape), 0.5, (-10, 10), 1.0)


@FAST
@given(kind=kinds, d=st.integers(2, 4))
def test_bounds_of_wrong_length_raise(kind, d):
    x = np.zeros((5, d))
    with pytest.raises(ValueError, match="bounds"):
        CALLS[kind](x, 0.5, (np.zeros(d + 1), np.ones(d + 1)), 1.0)


@pytest.mark.parametrize("steps", [0, -3, 2.5, True, "10", None])
def test_bad_steps_raise(steps):
    with pytest.raises(ValueError, match="steps"):
        binary_search_quantile(np.arange(5.0), 0.5, (0, 5), rho=1.0, steps=steps)


@pytest.mark.parametrize("beta", [1.0, 0.5, -2, float("nan"), float("inf"), "x"])
def test_bad_beta_raises(beta):
    with pytest.raises(ValueError, match="beta"):
        unbounded_quantile(
            np.arange(5.0), 0.5, (0, 5), epsilon_threshold=1, epsilon_query=1, beta=beta
        )


def test_grid_too_fine_raises():
    with pytest.raises(ValueError, match="beta"):
        grid_size((0, 1e6), 1 + 1e-9)


def test_budget_family_errors():
    x = np.arange(5.0)
    with pytest.raises(ValueError, match="exactly one of rho"):
        exponential_quantile(x, 0.5, (0, 5))
    with pytest.raises(ValueError, match="exactly one of rho"):
        exponential_quantile(x, 0.5, (0, 5), rho=1.0, epsilon=1.0)
    with pytest.raises(ValueError, match="not both families"):
        unbounded_quantile(x, 0.5, (0, 5))
    with pytest.raises(ValueError, match="not both families"):
        unbounded_quantile(x, 0.5, (0, 5), epsilon_threshold=1.0, rho_query=1.0)
    with pytest.raises(ValueError, match="both epsilon_threshold and epsilon_query"):
        unbounded_quantile(x, 0.5, (0, 5), epsilon_threshold=1.0)
    with pytest.raises(ValueError, match="both rho_threshold and rho_query"):
        unbounded_quantile(x, 0.5, (0, 5), rho_query=1.0)
    with pytest.raises(ValueError, match="utility_sensitivity"):
        exponential_quantile(x, 0.5, (0, 5), epsilon=1.0, utility_sensitivity=0.0)


@FAST
@given(
    kind=st.sampled_from(KINDS),
    data=st.lists(st.floats(-1e4, 1e4, allow_nan=False), min_size=1, max_size=20),
    lo=st.floats(-1e3, 1e3),
    width=st.floats(1e-3, 1e3),
    q=st.floats(0.01, 0.99),
    budget=st.sampled_from([1e-4, 0.1, 10.0, 1e8]),
    seed=st.integers(0, 2**32),
)
def test_property_output_inside_bounds(kind, data, lo, width, q, budget, seed):
    v = _call(kind, np.array(data), q, (lo, lo + width), budget=budget, rng=seed)
    assert lo <= v <= lo + width


@pytest.mark.parametrize("shape", [(64, 6), (3000, 200), (50_000, 3)])
def test_binary_search_column_blocks_give_identical_counts(shape):
    # The blocked path (columns contiguous: Fortran-ordered x) must release exactly the same
    # noisy counts as the one-pass-per-step path on the same x and seed: same mechanism, only
    # the exact counts are computed in another order. (3000, 200) spans several blocks of
    # columns; (50_000, 3) has one column per block; ties exercise "<=".
    x = np.random.default_rng(15).normal(size=shape)
    x[: shape[0] // 4] = np.round(x[: shape[0] // 4], 1)
    d = shape[1]
    lo, hi = np.full(d, -3.0), np.full(d, 3.0)
    c_order = QB._binary_search(
        np.ascontiguousarray(x), 0.4, lo, hi, 1.0, 15, np.random.default_rng(8)
    )
    f_order = QB._binary_search(
        np.asfortranarray(x), 0.4, lo, hi, 1.0, 15, np.random.default_rng(8)
    )
    for a, b in zip(c_order, f_order, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(
        binary_search_quantile(np.asfortranarray(x), 0.4, (-3, 3), rho=1.0, steps=15, rng=2),
        binary_search_quantile(np.ascontiguousarray(x), 0.4, (-3, 3), rho=1.0, steps=15, rng=2),
    )
