"""The compiled kernels of PLAN's per-column medians (dpcore._kernels_quantile) against the numpy
code they replace, and the medians with the kernels forced on against the numpy paths
(docs/speed.md, "PLAN, round 4")."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import _kernels
from dpcore import _kernels_quantile as KQ
from dpcore.estimators.plan.variances import variance_estimate
from dpcore.quantiles import exponential_quantile_columns, exponential_quantile_fast
from dpcore.quantiles._window import window_values

RTOL = 1e-12
#: a MIN_SIZE no array reaches: the numpy paths
NEVER = 1 << 60


def _close(got: np.ndarray, want: np.ndarray) -> None:
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-300)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=RTOL * scale)


@pytest.mark.parametrize(("n", "d"), [(2, 1), (7, 3), (130, 1), (257, 64), (101, 300)])
def test_half_squared_columns_equal_their_numpy_formula(n: int, d: int) -> None:
    rng = np.random.default_rng(n + d)
    X = 10.0 + rng.standard_normal((n, d)) * np.linspace(0.01, 30.0, d)
    X[: n // 3, 0] = 4.0  # equal values: squares of 0, floored
    perm = rng.permutation(n)[: 2 * (n // 2)]
    first, second = perm[0::2], perm[1::2]
    floor = rng.uniform(1e-6, 1e-2, d)
    want = np.maximum((X[first] - X[second]) ** 2 / 2.0, floor).T
    got = np.empty((d, first.size))
    KQ.half_squared_columns(X, first, second, floor, got)
    _close(got, want)


def _rows(kind: str, r: int, n: int, rng: np.random.Generator) -> np.ndarray:
    V = rng.standard_normal((r, n))
    if kind == "ties":
        V = np.round(V * 3.0) / 3.0  # about 40 distinct values: ties across the window's ends
    elif kind == "sorted":
        V.sort(axis=1)
    elif kind == "misleading":  # every sampled value is far above the rest: thresholds miss
        V[:, :: max(1, n // KQ.SAMPLE)] = 1e6
    return V


@pytest.mark.parametrize("kind", ["normal", "ties", "sorted", "misleading"])
@pytest.mark.parametrize(
    ("n", "s0", "s1"), [(50_000, 21_000, 27_000), (9_000, 0, 700), (9_000, 8_000, 8_999)]
)
def test_window_values_equal_the_sorted_rows(
    kind: str, n: int, s0: int, s1: int, monkeypatch
) -> None:
    V = _rows(kind, 5, n, np.random.default_rng(n + s0))
    want = np.sort(V, axis=1)[:, s0 : s1 + 1]
    monkeypatch.setattr(_kernels, "MIN_SIZE", 0)
    cap = KQ.window_cap(n, s0, s1)
    _, counts = KQ.window_split(V, *KQ.window_thresholds(V, s0, s1), cap)
    ok = (counts[:, 0] <= s0) & (s1 < counts.sum(axis=1)) & (counts[:, 2] <= cap)
    if kind != "misleading":
        assert ok.all()
    elif s1 < n - 1:  # the thresholds miss: these rows go through numpy.partition
        assert not ok.any()
    _close(window_values(V.copy(), s0, s1), want)
    monkeypatch.setattr(_kernels, "MIN_SIZE", NEVER)
    _close(window_values(V.copy(), s0, s1), want)


@pytest.mark.parametrize(("n", "d", "rho"), [(3_000, 40, 0.5), (40_000, 20, 2.0)])
def test_columns_entry_equals_the_fast_median(n: int, d: int, rho: float, monkeypatch) -> None:
    """The full-sort path (n = 3,000) and the windowed one (n = 40,000, rho = 2), kernels forced."""
    rng = np.random.default_rng(d)
    X = rng.standard_normal((n, d)) * np.linspace(0.5, 3.0, d)
    bounds = (np.full(d, -50.0), np.full(d, 50.0))
    monkeypatch.setattr(_kernels, "MIN_SIZE", NEVER)
    want = exponential_quantile_fast(X, 0.5, bounds, rho=rho, rng=7)
    monkeypatch.setattr(_kernels, "MIN_SIZE", 0)
    V = np.ascontiguousarray(X.T)
    _close(exponential_quantile_columns(V, 0.5, bounds, rho=rho, rng=7), want)
    _close(exponential_quantile_fast(X, 0.5, bounds, rho=rho, rng=7), want)


@pytest.mark.parametrize(("n", "d", "rho"), [(600, 30, 0.5), (90_000, 6, 4.0)])
def test_variance_estimate_with_kernels_equals_numpy(
    n: int, d: int, rho: float, monkeypatch
) -> None:
    rng = np.random.default_rng(n)
    X = 3.0 + rng.standard_normal((n, d)) * np.linspace(0.1, 5.0, d)
    bounds = (np.full(d, -40.0), np.full(d, 40.0))
    monkeypatch.setattr(_kernels, "MIN_SIZE", NEVER)
    want = variance_estimate(X, bounds, rho=rho, floor_ratio=1e-8, rng=11)
    monkeypatch.setattr(_kernels, "MIN_SIZE", 0)
    _close(variance_estimate(X, bounds, rho=rho, floor_ratio=1e-8, rng=11), want)
