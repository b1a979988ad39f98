"""The data check's one-pass kernel (dpcore._kernels.max_magnitude_bits) against numpy's two
reductions, and dpcore._validation.check_data with the kernel forced on against the numpy path:
the same magnitude, the same refusals, the same messages (docs/speed.md, "The data check in one
read, round 5")."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import _kernels as K
from dpcore._validation import _largest_magnitude, check_data

SHAPES = [(0, 3), (1, 1), (1, 5), (2, 1), (7, 1), (33, 17), (257, 64), (101, 300)]


def _kernel(x: np.ndarray) -> float:
    bits = K.max_magnitude_bits(np.ascontiguousarray(x).reshape(-1).view(np.int64))
    return float(np.int64(bits).view(np.float64))


def _numpy(x: np.ndarray) -> float:
    return max(float(x.max()), -float(x.min())) if x.size else 0.0


@pytest.mark.parametrize(("n", "d"), SHAPES)
@pytest.mark.parametrize("shift", [-50.0, 0.0, 50.0])
def test_kernel_equals_the_two_reductions(n: int, d: int, shift: float) -> None:
    """All-negative, mixed and all-positive data, empty and one-row arrays, odd shapes."""
    x = shift + np.random.default_rng(n * d).standard_normal((n, d)) * 3.0
    assert _kernel(x) == _numpy(x)
    assert _kernel(x[:, 0]) == _numpy(x[:, 0])


def test_kernel_on_zeros_subnormals_and_extremes() -> None:
    x = np.array([0.0, -0.0, 5e-324, -1e-310, 1e308, -1.7e308])
    assert _kernel(x) == _numpy(x) == 1.7e308
    assert _kernel(np.array([-0.0, 0.0])) == 0.0
    assert _kernel(np.array([-5e-324])) == 5e-324


@pytest.mark.parametrize("bad", [np.nan, -np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", [0, 1, 500, -1])
def test_kernel_is_not_finite_as_soon_as_one_value_is_not(bad: float, where: int) -> None:
    x = np.random.default_rng(1).standard_normal(1001) * 1e300
    x[where] = bad
    got = _kernel(x)
    assert not np.isfinite(got)
    assert np.isnan(got) == np.isnan(bad)


def _message(x: np.ndarray) -> str:
    with pytest.raises(ValueError) as info:
        check_data(x)
    return str(info.value)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 3e100, -3e100])
def test_check_data_refuses_as_before_with_the_kernel(
    bad: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    x = np.random.default_rng(2).standard_normal((64, 9))
    x[13, 4] = bad
    x[40, 8] = bad
    want = _message(x)
    monkeypatch.setattr(K, "MIN_SIZE", 0)
    assert _message(x) == want
    assert _message(np.asfortranarray(x)) == want
    assert _message(x[:, ::2]) == want


@pytest.mark.parametrize(("n", "d"), SHAPES)
def test_check_data_takes_the_kernel_for_contiguous_large_arrays(
    n: int, d: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above MIN_SIZE a C- or F-ordered array is read once by the kernel (same magnitude as
    numpy's); a strided view keeps numpy's two reductions."""
    x = np.random.default_rng(3).standard_normal((n, d)) - 0.5
    monkeypatch.setattr(K, "MIN_SIZE", 0)
    calls: list[int] = []
    kernel = K.max_magnitude_bits
    monkeypatch.setattr(K, "max_magnitude_bits", lambda b: calls.append(b.size) or kernel(b))
    for arr in (x, np.asfortranarray(x)):
        assert _largest_magnitude(arr) == _numpy(arr)
        if n:
            assert check_data(arr) is arr
    assert calls == ([x.size] * 4 if n else [])
    if d > 2:
        assert _largest_magnitude(x[:, ::2]) == _numpy(x[:, ::2])
        assert len(calls) == (4 if n else 0)
