"""Input checks: clear errors for bad data, bounds and seeds."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dpcore._validation import as_generator, check_bounds, check_data
from dpcore.limits import MAX_ABS_VALUE


@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 6), st.integers(1, 4)),
        elements=st.floats(allow_nan=True, allow_infinity=True),
    )
)
def test_check_data_rejects_exactly_the_non_finite(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warnings leak out of the fast path
        if np.all(np.isfinite(x)) and np.all(np.abs(x) <= MAX_ABS_VALUE):
            assert check_data(x).shape == x.shape
        elif np.all(np.isfinite(x)):  # finite but huge: named as such, never as NaN
            with pytest.raises(ValueError, match="rescale"):
                check_data(x)
        else:
            with pytest.raises(ValueError, match="NaN or infinite"):
                check_data(x)


def test_shapes_bounds_and_seeds():
    with pytest.raises(ValueError, match="2-D"):
        check_data(np.zeros(3), ndim=2)
    with pytest.raises(ValueError, match="numeric"):
        check_data([["a", "b"]])
    lo, hi = check_bounds((0, [1, 2]), 2)
    assert lo.tolist() == [0, 0] and hi.tolist() == [1, 2]
    with pytest.raises(ValueError, match="inverted"):
        check_bounds((1, 0), 1)
    with pytest.raises(ValueError, match="required"):
        check_bounds(None)
    with pytest.raises(ValueError, match="non-negative"):
        as_generator(-1)
    with pytest.raises(ValueError, match="bool"):
        as_generator(True)


@pytest.mark.parametrize("bounds", [(-(10**400), 10**400), (0, 10**400), ([-(10**400)], [1])])
def test_integer_bounds_beyond_float_range_are_a_value_error(bounds):
    """Reliability audit 2.7: OverflowError from check_bounds (43 fuzz cases, 23 estimators)."""
    with pytest.raises(ValueError, match="bounds must be finite"):
        check_bounds(bounds, 1)
