"""The compiled Walsh–Hadamard rotation (dpcore/_kernels_rotation.py) against the BLAS path.

The kernel adds the transform's exact ``± a_i`` terms in another order than the BLAS products of
``RandomizedHadamard.forward_columns``, so the two agree to the last bits on real inputs and bit
for bit on dyadic ones (docs/speed.md, "IOME, round 4").
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dpcore import _kernels as K
from dpcore import _kernels_rotation as KR
from dpcore.estimators.iome import iome, iome_paper
from dpcore.estimators.iome.rotate import rotate
from dpcore.rotation import RandomizedHadamard

# (n, d): no rows, one row, rows not a multiple of the lanes, D = 1, 2, 4, 8, odd and even log2 D
SHAPES = [(0, 5), (1, 1), (3, 2), (9, 3), (17, 8), (8, 16), (13, 33), (40, 100), (7, 2048)]


def _kernel_rows(R: RandomizedHadamard, X: np.ndarray, c: np.ndarray) -> np.ndarray:
    out = np.full((X.shape[0], R.dim), np.nan)
    KR.randomized_hadamard_rows(X, c, R.signs, R._scale, out)
    return out


@pytest.mark.parametrize(("n", "d"), SHAPES)
@pytest.mark.parametrize("rounds", [1, 3])
def test_kernel_equals_the_blas_rotation(n: int, d: int, rounds: int) -> None:
    rng = np.random.default_rng(n * 1000 + d)
    X = 10.0 + rng.standard_normal((n, d)) * np.linspace(1.0, 50.0, d)
    c = rng.standard_normal(d)
    R = RandomizedHadamard(d, rounds=rounds, rng=rounds)
    want = R.forward_columns(X, center=c).T
    got = _kernel_rows(R, X, c)
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1.0)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize(("n", "d"), [(9, 3), (40, 100), (16, 512)])
def test_kernel_rotates_dyadic_values_exactly(n: int, d: int) -> None:
    """Binary data minus its box centre: every sum is exact, so both paths give the same bits."""
    X = np.random.default_rng(d).integers(0, 2, (n, d)).astype(float)
    R = RandomizedHadamard(d, rng=0)
    c = np.full(d, 0.5)
    np.testing.assert_array_equal(_kernel_rows(R, X, c), R.forward_columns(X, center=c).T)


@pytest.mark.parametrize(("n", "d"), [(1, 7), (33, 64), (50, 300)])
def test_forward_is_the_same_through_either_path(
    n: int, d: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    X = np.random.default_rng(3).standard_normal((n, d)) * 7.0
    R = RandomizedHadamard(d, rng=4)
    monkeypatch.setattr(K, "MIN_SIZE", 1 << 62)
    want = R.forward(X, center=np.ones(d))
    plain = R.forward(X)
    monkeypatch.setattr(K, "MIN_SIZE", 0)
    got = R.forward(X, center=np.ones(d))
    assert got.flags.c_contiguous and want.flags.c_contiguous
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())
    np.testing.assert_allclose(R.forward(X), plain, rtol=0, atol=1e-12 * np.abs(plain).max())
    np.testing.assert_allclose(R.inverse(got)[:, :d], X - 1.0, rtol=0, atol=1e-12 * 7 * d)


def test_iome_rotates_into_rows() -> None:
    X = np.random.default_rng(5).standard_normal((30, 5))
    lo, hi = np.full(5, -4.0), np.full(5, 6.0)
    rot = rotate(X, lo, hi, iome_paper.checked(), np.random.default_rng(0))
    assert rot.xr.shape == (30, 8) and rot.xr.flags.c_contiguous
    np.testing.assert_allclose(rot.xr, rot.R.forward_columns(X, center=rot.m0).T, atol=1e-14)


@pytest.mark.parametrize(
    "estimator",
    [
        iome_paper,
        iome,
        dataclasses.replace(iome, rotate=False),
        dataclasses.replace(iome, center_step="coarse_to_fine"),
    ],
)
def test_iome_variants_with_the_kernels_equal_the_numpy_paths(
    estimator, monkeypatch: pytest.MonkeyPatch
) -> None:
    X = 3.0 + np.random.default_rng(6).standard_normal((300, 40)) * np.linspace(1.0, 9.0, 40)
    bounds = (np.full(40, -200.0), np.full(40, 200.0))
    monkeypatch.setattr(K, "MIN_SIZE", 1 << 62)
    want = estimator(X, rho=0.5, bounds=bounds, rng=5)
    monkeypatch.setattr(K, "MIN_SIZE", 0)
    got = estimator(X, rho=0.5, bounds=bounds, rng=5)
    np.testing.assert_allclose(got.mean, want.mean, rtol=0, atol=1e-9 * np.abs(want.mean).max())
    np.testing.assert_array_equal(got.diagnostics.clipped, want.diagnostics.clipped)
    assert got.ledger.total() == pytest.approx(want.ledger.total(), rel=1e-12)
