"""The Binary product page's sampler (dpcore.data.binary_rows.sample_binary_rows): the same
distribution as dpcore.data.binary.sample_binary_product (up to 2^-33 on a common bit's
probability), a canonical CSR matrix, exact at p = 0 and p = 1, and checked arguments."""

import numpy as np
import pytest
from scipy import stats

from dpcore.data import binary_rows
from dpcore.data.binary import profile
from dpcore.data.binary_rows import sample_binary_rows


@pytest.mark.parametrize(
    ("p", "n"),
    [
        (profile("skewed", 256, rng=3), 50_000),
        (profile("dense", 17, rng=0), 1_000),
        (profile("sparse", 40, rng=0), 20),  # rare bits topped up
        (np.array([0.0, 1.0, 0.04, 0.06, 0.5, 0.0]), 997),  # never, always, rare next to common
        (np.array([0.02, 0.9]), 1),
    ],
)
def test_the_matrix_is_canonical_and_exact_at_zero_and_one(p: np.ndarray, n: int) -> None:
    X = sample_binary_rows(p, n, rng=5)
    assert X.shape == (n, p.size) and X.format == "csr"
    assert X.has_canonical_format
    within = np.ones(max(X.nnz - 1, 0), dtype=bool)  # pairs of neighbours in the same row
    within[X.indptr[1:-1][(X.indptr[1:-1] > 0) & (X.indptr[1:-1] < X.nnz)] - 1] = False
    assert np.all(np.diff(X.indices)[within] > 0)  # sorted, no duplicates in every row
    assert np.all(X.data == 1.0)
    counts = np.bincount(X.indices, minlength=p.size)
    assert np.all(counts[p == 0] == 0) and np.all(counts[p == 1] == n)


def test_column_counts_follow_the_binomial_of_each_probability() -> None:
    """Each column's count of ones, over 200 draws, against Binomial(n, p_j): the randomised
    probability integral transform ``F(k - 1) + V P(k)`` (``V`` uniform) of a count is exactly
    uniform, tested by Kolmogorov-Smirnov (common and rare bits, and the p = 0.5 bits the page
    starts with)."""
    p = np.array([0.5, 0.5, 0.3, 0.06, 0.05, 0.01, 1e-3, 0.9])
    n, draws = 2_000, 200
    g = np.random.default_rng(11)
    counts = np.array(
        [
            np.bincount(sample_binary_rows(p, n, rng=g).indices, minlength=p.size)
            for _ in range(draws)
        ]
    )
    v = np.random.default_rng(12).random(counts.shape)
    for j, pj in enumerate(p):
        k = counts[:, j]
        pit = stats.binom.cdf(k - 1, n, pj) + v[:, j] * stats.binom.pmf(k, n, pj)
        assert stats.kstest(pit, "uniform").pvalue > 1e-3, (j, pj)


def test_bits_of_a_row_are_independent() -> None:
    """Two common bits at 1/2 and a rare one: the joint frequencies are the products."""
    p = np.array([0.5, 0.5, 0.04])
    X = sample_binary_rows(p, 400_000, rng=2).toarray().astype(bool)
    both = np.mean(X[:, 0] & X[:, 1])
    assert both == pytest.approx(0.25, abs=4 * np.sqrt(0.25 * 0.75 / X.shape[0]))
    mixed = np.mean(X[:, 0] & X[:, 2])
    assert mixed == pytest.approx(0.02, abs=4 * np.sqrt(0.02 * 0.98 / X.shape[0]))


def test_a_seed_gives_the_same_rows_and_another_seed_others() -> None:
    p = profile("skewed", 64, rng=1)
    a, b = sample_binary_rows(p, 5_000, rng=3), sample_binary_rows(p, 5_000, rng=3)
    assert (a != b).nnz == 0
    assert (a != sample_binary_rows(p, 5_000, rng=4)).nnz > 0


@pytest.mark.parametrize(
    ("p", "n"), [([0.5, 1.2], 10), ([[0.5]], 10), ([np.nan], 10), ([0.5], 0), ([0.5], 2.5)]
)
def test_bad_arguments_are_refused(p, n) -> None:
    with pytest.raises(ValueError, match=r"p must be|n must be"):
        sample_binary_rows(p, n, rng=0)


def test_row_blocks_of_common_bits_join_into_one_matrix(monkeypatch) -> None:
    """Common bits are drawn in blocks of rows: with blocks of 250 rows, 997 rows take four, and
    the matrix is the same as in one block (the same uniforms, in the same order)."""
    p = np.array([0.3, 0.02, 0.7, 0.5, 0.06])
    whole = sample_binary_rows(p, 997, rng=8)
    monkeypatch.setattr(binary_rows, "BLOCK", 1_000)  # 4 common columns: 250 rows a block
    blocks = sample_binary_rows(p, 997, rng=8)
    assert blocks.has_canonical_format and (whole != blocks).nnz == 0


def _arrays(X) -> tuple:
    return X.shape, X.indptr.dtype, X.indices.dtype, X.data.dtype, X.indptr, X.indices, X.data


@pytest.mark.parametrize(
    ("p", "n", "block"),
    [
        (profile("skewed", 512, rng=3), 30_000, binary_rows.BLOCK),  # the page's profile
        (profile("dense", 64, rng=1), 5_003, 1_001),  # no rare bit; odd blocks of uniforms
        (profile("two_level", 128, rng=2), 4_000, 7_777),  # rows with many rare ones
        (
            np.array([0.0, 1.0, 0.04, 0.06, 0.5, 0.0]),
            997,
            250,
        ),  # never, always, rare next to common
        (np.array([0.9, 0.01]), 1, binary_rows.BLOCK),  # one row
    ],
)
def test_the_compiled_merge_builds_the_same_matrix(monkeypatch, p, n, block) -> None:
    """The compiled path (large samples) merges the common and the rare columns row by row from
    the same draws: the same arrays, dtypes included, as the numpy path's ``_common + rare``."""
    monkeypatch.setattr(binary_rows, "BLOCK", block)
    monkeypatch.setattr(binary_rows._kernels, "MIN_SIZE", 10**12)  # the numpy path
    numpy_path = sample_binary_rows(p, n, rng=11)
    monkeypatch.setattr(binary_rows._kernels, "MIN_SIZE", 1)  # the compiled merge
    compiled = sample_binary_rows(p, n, rng=11)
    for a, b in zip(_arrays(numpy_path), _arrays(compiled), strict=True):
        assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
