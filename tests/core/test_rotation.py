"""Randomised Walsh–Hadamard rotation: exact orthogonality and norm preservation (specs/plan.md §9.11)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import hadamard

from dpcore.rotation import RandomizedHadamard, hadamard_transform, next_power_of_two


@pytest.mark.parametrize("d", [1, 2, 3, 5, 8, 13, 64, 100, 257])
def test_matches_the_dense_definition_and_is_orthogonal(d: int) -> None:
    R = RandomizedHadamard(d, rng=d)
    D = next_power_of_two(d)
    assert R.dim == D and R.signs.shape == (3, D) and set(np.unique(R.signs)) <= {-1.0, 1.0}
    H = hadamard(D) / np.sqrt(D)
    dense = np.eye(D)
    for t in range(3):
        dense = H @ np.diag(R.signs[t]) @ dense
    M = R.matrix()
    np.testing.assert_allclose(M, dense, atol=1e-12)
    np.testing.assert_allclose(M @ M.T, np.eye(D), atol=1e-12)
    x = np.random.default_rng(1).standard_normal((9, d))
    y = R.forward(x)
    padded = np.zeros((9, D))
    padded[:, :d] = x
    np.testing.assert_allclose(y, padded @ dense.T, atol=1e-10)
    # zero padding keeps norms; the inverse recovers x and zeros in the padding
    np.testing.assert_allclose(np.linalg.norm(y, axis=1), np.linalg.norm(x, axis=1), rtol=1e-12)
    np.testing.assert_allclose(R.inverse(y), x, atol=1e-10)
    np.testing.assert_allclose(R.inverse(y, keep_padding=True)[:, d:], 0.0, atol=1e-10)


def test_vectors_and_large_shapes_use_the_kronecker_path() -> None:
    R = RandomizedHadamard(1500, rng=3)
    x = np.random.default_rng(0).standard_normal((50, 1500))
    y = R.forward(x)
    assert y.shape == (50, 2048)
    np.testing.assert_allclose(R.forward(x[0]), y[0], atol=1e-12)
    np.testing.assert_allclose(R.inverse(y[0]), x[0], atol=1e-10)
    np.testing.assert_allclose(np.einsum("ij,ij->i", y, y), np.einsum("ij,ij->i", x, x), rtol=1e-12)


def test_hadamard_transform_is_an_involution() -> None:
    x = np.random.default_rng(2).standard_normal((4, 512))
    np.testing.assert_allclose(hadamard_transform(hadamard_transform(x)), x, atol=1e-12)
    np.testing.assert_allclose(
        hadamard_transform(x), x @ (hadamard(512) / np.sqrt(512)), atol=1e-12
    )
    with pytest.raises(ValueError, match="power-of-two"):
        hadamard_transform(np.ones((2, 3)))


def test_same_seed_same_rotation_and_bad_input() -> None:
    np.testing.assert_array_equal(
        RandomizedHadamard(10, rng=5).signs, RandomizedHadamard(10, rng=5).signs
    )
    with pytest.raises(ValueError, match="d must be"):
        RandomizedHadamard(0)
    with pytest.raises(ValueError, match="columns"):
        RandomizedHadamard(4, rng=0).forward(np.ones((2, 5)))


@pytest.mark.parametrize(("n", "d"), [(300, 100), (131, 5000)])
def test_forward_columns_with_centre_across_chunks(n: int, d: int) -> None:
    # Several chunks with a partial last one (n = 300 > 2 * CHUNK; d = 5000 gives D = 8192, whose
    # chunks are narrower than CHUNK): the column layout is the transpose of forward(x - centre),
    # which matches the dense definition, and the inverse recovers x - centre.
    R = RandomizedHadamard(d, rng=11)
    rng = np.random.default_rng(12)
    x, centre = rng.standard_normal((n, d)), rng.standard_normal(d)
    cols = R.forward_columns(x, center=centre)
    assert cols.shape == (R.dim, n) and cols.flags.c_contiguous
    np.testing.assert_allclose(cols.T, R.forward(x - centre), atol=1e-12)
    if d <= 100:
        np.testing.assert_allclose(
            cols.T[:, :], np.pad(x - centre, ((0, 0), (0, R.dim - d))) @ R.matrix().T, atol=1e-10
        )
    np.testing.assert_allclose(R.inverse(cols.T), x - centre, atol=1e-10)
