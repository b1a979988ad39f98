"""PureDPPDE's permuted copy of a large checked sample
(dpcore.estimators.binary_product.kernels.permuted_rows): the same matrix as scipy's ``X[perm]``,
arrays and dtypes, with the values shared instead of copied."""

import numpy as np
import pytest

from dpcore.data.binary import profile
from dpcore.data.binary_rows import sample_binary_rows
from dpcore.estimators.binary_product import CheckedBinary, kernels


@pytest.mark.parametrize(("name", "d", "n"), [("skewed", 512, 60_000), ("dense", 16, 5_001)])
def test_permuted_rows_equal_scipys(monkeypatch, name: str, d: int, n: int) -> None:
    monkeypatch.setattr(kernels._kernels, "MIN_SIZE", 1)  # the compiled gather at any size
    X = CheckedBinary(sample_binary_rows(profile(name, d, rng=2), n, rng=6)).matrix
    perm = np.random.default_rng(3).permutation(n)
    want, got = X[perm], kernels.permuted_rows(X, perm)
    assert got.shape == want.shape
    for a, b in ((want.indptr, got.indptr), (want.indices, got.indices), (want.data, got.data)):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert np.shares_memory(got.data, X.data)  # shared: a checked matrix stores only ones


def test_small_or_dense_input_is_scipys_row_index() -> None:
    dense = np.eye(4)[[0, 2, 1, 3]]
    perm = np.array([3, 1, 0, 2])
    assert np.array_equal(kernels.permuted_rows(dense, perm), dense[perm])
