"""The one-number paths of the argument checks keep their answers and messages (they skip NumPy's
array reductions: docs/speed.md, "Compare's refinement, round 4")."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore._validation import as_generator, check_bounds, check_positive
from dpcore.mechanisms.backend import _finite_value, _positive_array


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, -math.inf, np.float64(-2.0)])
def test_one_number_that_is_not_positive_and_finite_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="sensitivity must be positive and finite"):
        _positive_array(bad, "sensitivity")
    with pytest.raises(ValueError, match="sensitivity must be positive and finite"):
        _positive_array(np.array([1.0, bad]), "sensitivity")


def test_positive_numbers_and_arrays_come_back_as_float_arrays() -> None:
    assert _positive_array(2, "scale").dtype == float and _positive_array(2, "scale") == 2.0
    assert _positive_array([1.0, 3.0], "scale").tolist() == [1.0, 3.0]
    with pytest.raises(ValueError, match="scale must be positive and finite"):
        _positive_array([], "scale")


@pytest.mark.parametrize("bad", [math.nan, math.inf, [0.0, math.nan]])
def test_a_query_answer_with_nan_or_infinity_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="NaN or infinity"):
        _finite_value(bad)
    assert _finite_value(1.5) == 1.5


def test_check_positive_keeps_its_messages() -> None:
    for bad in (math.nan, 0.0, -3.0, math.inf):
        with pytest.raises(ValueError, match="rho must be a positive finite number"):
            check_positive(bad, "rho")
    assert check_positive(math.inf, "t", allow_inf=True) == math.inf
    assert check_positive(np.float64(0.5), "rho") == 0.5


def test_a_generator_is_returned_as_it_is() -> None:
    gen = np.random.default_rng(3)
    assert as_generator(gen) is gen
    with pytest.raises(ValueError, match="not a bool"):
        as_generator(True)


def test_check_bounds_keeps_its_messages() -> None:
    with pytest.raises(ValueError, match="must be finite numbers"):
        check_bounds((0.0, math.inf), 2)
    with pytest.raises(ValueError, match="inverted or empty"):
        check_bounds(([0.0, 1.0], [1.0, 1.0]), 2)
    with pytest.raises(ValueError, match="narrower than"):
        check_bounds((0.0, 1e-300), 1)
    lo, hi = check_bounds((-1, 2), 3)
    assert lo.tolist() == [-1.0] * 3 and hi.tolist() == [2.0] * 3


@pytest.mark.parametrize(
    ("sens", "scale"), [(0.5, 2.0), (np.float64(0.5), None), ([0.5, 0.25], [2.0, 1.0])]
)
def test_gaussian_records_the_largest_sensitivity_and_scale_and_its_ratio(
    sens: object, scale: object
) -> None:
    from dpcore import mechanisms
    from dpcore.privacy import Ledger

    ledger = Ledger("zcdp")
    with mechanisms.stage(ledger, "sum"):
        out = mechanisms.gaussian(np.zeros(2), sensitivity=sens, rho=0.5, scale=scale, rng=1)
    (line,) = ledger.charges
    sd = np.asarray(1.0 / math.sqrt(2.0 * 0.5) * 0.5 if scale is None else scale, dtype=float)
    assert line.sensitivity == float(np.max(sens))
    assert line.scale == float(np.max(sd))
    assert line.ratio == float(np.min(sd) * math.sqrt(2.0 * 0.5) / np.max(sens))
    assert isinstance(out.scale, float) == (sd.ndim == 0)
