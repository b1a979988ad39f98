"""The binary product page's fast paths give the same numbers, to the bit, as the plain
paths they replace: the sampler's CSR, row blocks as views, the identity row order without a
gather, the truncated mean's mask sum, one Monte Carlo draw for several TVs, the batched shading
of the TV figure. Each test builds the reference the old way and compares exactly."""

from __future__ import annotations

import json
import math

import numpy as np
import plotly.graph_objects as go
import pytest
from scipy import sparse, stats

from dpcore.data import binary as binary_data
from dpcore.data.binary import profile, sample_binary_product
from dpcore.estimators import binary_baselines, binary_product
from dpcore.estimators.binary_baselines import truncated_laplace
from dpcore.estimators.binary_product import pure_dp_pde, row_slice
from dpcore.experiments.studies import product_tv, product_tv_many, simulate_tv
from dpcore.figures.binary_product import NAIVE_COLOR, tv_figure, tv_summary


def _reference_sample(p: np.ndarray, n: int, rng: int) -> sparse.csr_matrix:
    """The sampler's matrix built the plain way: the same ones, COO -> CSR (which sorts
    each row's columns)."""
    rows, cols = binary_data._ones(p, n, np.random.default_rng(rng))
    return sparse.coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n, p.size)).tocsr()


def _same_csr(a: sparse.csr_matrix, b: sparse.csr_matrix) -> bool:
    return (
        a.shape == b.shape
        and np.array_equal(a.indptr, b.indptr)
        and np.array_equal(a.indices, b.indices)
        and np.array_equal(a.data, b.data)
    )


@pytest.mark.parametrize(
    ("p", "n"),
    [
        (profile("skewed", 256, rng=3), 50_000),
        (profile("power_law", 64, rng=0), 300_001),  # several row chunks (> 4e6 common entries)
        (profile("dense", 17, rng=0), 1_000),
        (profile("sparse", 40, rng=0), 20),  # rare bits topped up
        (np.array([0.0, 1.0, 0.04, 0.06, 0.5, 0.0]), 997),  # never, always, rare next to common
        (np.array([0.02, 0.9]), 1),
    ],
)
def test_sampler_gives_the_matrix_of_the_plain_coo_build(p: np.ndarray, n: int) -> None:
    for seed in (0, 7):
        new = sample_binary_product(p, n, rng=seed)
        ref = _reference_sample(p, n, seed)
        assert _same_csr(new, ref)
        assert new.has_sorted_indices and new.indices.dtype == ref.indices.dtype
        rows, cols = binary_data._ones(p, n, np.random.default_rng(seed))
        order = np.lexsort((rows, cols))  # what the CSC build relies on: each column's rows ascend
        assert np.array_equal(order, np.lexsort((np.arange(rows.size), cols)))


@pytest.mark.parametrize("dense", [False, True])
def test_row_slice_is_the_copying_slice(dense: bool) -> None:
    X = sample_binary_product(profile("skewed", 128, rng=1), 5_000, rng=2)
    X = X.toarray() if dense else X
    for lo, hi in ((0, 5_000), (0, 0), (17, 18), (1_000, 4_321), (4_999, 5_000)):
        view, ref = row_slice(X, lo, hi), X[lo:hi]
        if dense:
            assert np.array_equal(view, ref)
        else:
            assert _same_csr(view, ref)
            v = np.random.default_rng(lo).random(X.shape[1])
            w = np.random.default_rng(hi).random(hi - lo)
            assert np.array_equal(view @ v, ref @ v) and np.array_equal(view.T @ w, ref.T @ w)


def test_pde_on_views_equals_pde_on_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole pipeline, with and without the views and the identity order (flip, rounds, heavy,
    recycled final rows), bit for bit; and the same on dense input."""
    X = sample_binary_product(profile("skewed", 256, rng=5), 40_000, rng=6)
    runs = [
        dict(flip=False, shuffle=False),
        dict(flip=True, shuffle=False),
        dict(flip=True, shuffle=True),
        dict(flip=False, shuffle=True, recycle=False),
    ]
    fast = [pure_dp_pde(X, epsilon=0.8, rng=9, **kw) for kw in runs]
    dense = [pure_dp_pde(X.toarray(), epsilon=0.8, rng=9, **kw) for kw in runs]

    def copying_blocks(self: object, ranges: list[tuple[int, int]]) -> object:
        idx = np.concatenate([np.arange(lo, hi) for lo, hi in ranges])
        return self.Xp[self.rest0 + idx]  # type: ignore[attr-defined]

    init = binary_product._Pipeline.__init__

    def gathering_init(self: object, X: object, perm: object, *args: object) -> None:
        n = X.shape[0]  # type: ignore[attr-defined]
        init(self, X, np.arange(n) if perm is None else perm, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(binary_product, "row_slice", lambda X, lo, hi: X[lo:hi])
    monkeypatch.setattr(binary_product._Pipeline, "blocks", copying_blocks)
    monkeypatch.setattr(binary_product._Pipeline, "__init__", gathering_init)
    plain = [pure_dp_pde(X, epsilon=0.8, rng=9, **kw) for kw in runs]
    assert sum(len(e.diagnostics.buckets) > 0 for e in plain) >= 2  # the heavy stage ran
    for a, b, c in zip(fast, plain, dense, strict=True):
        for e in (b, c):
            assert np.array_equal(a.mean, e.mean)
            assert np.array_equal(a.diagnostics.noise_std, e.diagnostics.noise_std)
            assert np.array_equal(a.diagnostics.clipped, e.diagnostics.clipped)
            assert a.diagnostics.stages == e.diagnostics.stages


def _reference_truncated_sum(X: sparse.csr_matrix, rows: np.ndarray, B: float) -> np.ndarray:
    """The truncated column sum as before: gather the rows, then ``X[rows].T @ factor``."""
    XB = X[rows]
    w = np.asarray(XB.sum(axis=1)).ravel()
    factor = np.where(w > B, B / np.maximum(w, 1e-300), 1.0)
    return np.asarray(XB.T @ factor).ravel()


@pytest.mark.parametrize("B", [1e6, 3.0])  # no row truncated / many rows truncated
def test_truncated_column_sum_equals_the_gathered_sum(B: float) -> None:
    X = sample_binary_product(profile("two_level", 64, rng=0), 20_000, rng=1)
    rows = np.random.default_rng(2).permutation(20_000)[2_000:]
    w = binary_baselines._row_weights(X)[rows]
    hit = w > B
    factor = np.where(hit, B / np.maximum(w, 1e-300), 1.0)
    got = binary_baselines._weighted_colsum(X, rows, factor, bool(hit.any()))
    assert hit.any() == (B < 1e6)
    assert np.array_equal(got, _reference_truncated_sum(X, rows, B))
    dense = binary_baselines._weighted_colsum(X.toarray(), rows, factor, bool(hit.any()))
    assert np.array_equal(
        binary_baselines._row_weights(X.toarray()), binary_baselines._row_weights(X)
    )
    assert np.allclose(dense, got, rtol=1e-12, atol=0)  # BLAS may sum the dense array in blocks


def test_truncated_laplace_equals_its_gathered_reference() -> None:
    """End to end, with rows that the radius truncates (a few all-ones rows among sparse ones) and
    without: the noiseless mean, the clipped rows and the released mean are the old ones."""
    X = sample_binary_product(profile("sparse", 128, rng=0), 30_000, rng=3).tolil()
    X[:40] = 1.0
    X = X.tocsr()
    for data, expect_hits in ((X, True), (X[40:], False)):
        est = truncated_laplace(data, epsilon=0.5, rng=4)
        n = data.shape[0]
        perm = np.random.default_rng(4).permutation(n)
        B = est.diagnostics.radius
        ref = _reference_truncated_sum(data, perm[n // 10 :], B) / (n - n // 10)
        assert np.array_equal(est.diagnostics.noiseless_mean, ref)
        assert bool(est.diagnostics.clipped.any()) == expect_hits


def test_truncated_laplace_noise_scale() -> None:
    """KS of the released noise over the logged scale against Laplace(1); the same test rejects a
    scale off by 30% either way (KS distance 0.048 against a 1e-6 critical value of about 0.021
    at d = 16384)."""
    d = 16_384
    X = sample_binary_product(np.full(d, 1.0 / d**2), 20_000, rng=21)
    est = truncated_laplace(X, epsilon=0.5, rng=22, clip=False)
    z = (est.diagnostics.unclipped - est.diagnostics.noiseless_mean) / est.diagnostics.scale
    assert est.diagnostics.scale == pytest.approx(min(2 * est.diagnostics.radius, d) / 18_000 / 0.5)
    assert stats.kstest(z, stats.laplace(scale=1.0).cdf).pvalue > 1e-6
    assert stats.kstest(z, stats.laplace(scale=1.3).cdf).pvalue < 1e-6
    assert stats.kstest(z, stats.laplace(scale=1 / 1.3).cdf).pvalue < 1e-6
    assert math.isclose(float(np.var(z)), 2.0, rel_tol=0.1)


def test_one_draw_for_several_tvs_is_each_tv_on_its_own() -> None:
    p = profile("skewed", 128, rng=1)
    qs = [np.clip(p + np.random.default_rng(k).normal(0, 0.01, p.size), 0, 1) for k in range(4)]
    many = product_tv_many(p, qs, rng=5)
    assert [float(t) for t in many] == [product_tv(p, q, rng=5) for q in qs]


def test_tv_figure_shading_is_add_vrect() -> None:
    recs = simulate_tv(
        "dense",
        [(n, 64) for n in (3_000, 10_000, 30_000)],
        1.0,
        seeds=2,
        estimators=("binary_pde", "binary_naive_laplace", "binary_truncated_laplace"),
        rng=0,
        flip=True,
    )
    summary = tv_summary(recs, "n")
    fig = tv_figure(summary, "n", None, "t")
    assert len(fig.layout.shapes) >= 1  # dense: the baselines win somewhere
    ref = go.Figure(fig)
    ref.layout.shapes = ()
    xs = np.sort(summary["n"].unique()).astype(float)
    # each shaded point reaches the geometric midpoints to its neighbours (half a step outside
    # at the two ends), so neighbouring shaded points leave no gap
    mids = np.sqrt(xs[1:] * xs[:-1])
    lows = [xs[0] / (xs[1] / xs[0]) ** 0.5, *mids]
    highs = [*mids, xs[-1] * (xs[-1] / xs[-2]) ** 0.5]
    for shape in fig.layout.shapes:
        i = int(np.argmin(np.abs(np.log(xs) - np.log(np.sqrt(shape.x0 * shape.x1)))))
        ref.add_vrect(x0=lows[i], x1=highs[i], fillcolor=NAIVE_COLOR, opacity=0.1, line_width=0)
    # the same JSON (as a dict: the reference sets its shapes last, the figure where add_vrect did)
    assert json.loads(fig.to_json()) == json.loads(ref.to_json())
