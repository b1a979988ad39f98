"""The compiled kernels (dpcore._kernels) against their numpy formulas, and the estimators with the
kernels forced on against the numpy paths (docs/speed.md, "Round 3")."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from dpcore import _kernels as K
from dpcore.estimators._localise import centred_norms, clipped_sum
from dpcore.estimators.iome import iome_paper
from dpcore.estimators.plan import plan_l2

RTOL = 1e-12
#: (n, d): random sizes and the edge cases (no rows, one row, one column, odd n)
SHAPES = [(0, 3), (1, 1), (1, 5), (2, 1), (7, 1), (33, 17), (257, 64), (101, 300)]


def _data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = 10.0 + rng.standard_normal((n, d)) * np.linspace(0.1, 30.0, d)
    return X, 10.0 + rng.standard_normal(d), rng.uniform(0.2, 3.0, d)


def _close(got: np.ndarray, want: np.ndarray) -> None:
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-300)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=RTOL * scale)


@pytest.mark.parametrize(("n", "d"), SHAPES)
def test_row_kernels_equal_their_numpy_formulas(n: int, d: int) -> None:
    X, c, s = _data(n, d)
    Y = X * s - c
    norms = np.sqrt(np.einsum("jk,jk->j", Y, Y))
    R = float(np.median(norms)) if n else 1.0
    f = np.minimum(1.0, R / np.maximum(norms, 1e-300))
    _close(K.clipped_sum_rows(X, s, c, R), f @ Y)
    _close(K.clipped_sum_rows(X, np.ones(d), c, R), clipped_sum(X, c, R) if n else np.zeros(d))
    P = X[0 : 2 * (n // 2) : 2] * s - X[1 : 2 * (n // 2) : 2] * s
    _close(K.pair_distances_rows(X, s), np.sqrt(np.einsum("jk,jk->j", P, P)))
    Z = (X - c) * s
    z = np.sqrt(np.einsum("jk,jk->j", Z, Z))
    _close(K.scaled_norms(X, c, s), z)
    _close(K.scaled_norms(X, c, np.ones(d)), np.linalg.norm(X - c, axis=1))
    w = np.minimum(1.0, R / np.maximum(z, 1e-300))
    _close(K.scaled_weighted_sum(X, c, s, w), w @ Z)


@pytest.mark.parametrize(("n", "d"), SHAPES)
def test_column_kernels_equal_their_numpy_formulas(n: int, d: int) -> None:
    X, c, _ = _data(n, d, seed=1)
    Y = np.ascontiguousarray(X.T)  # IOME's (D, n) layout
    diff = Y - c[:, None]
    norms = np.sqrt(np.einsum("kj,kj->j", diff, diff))
    R = float(np.median(norms)) if n else 1.0
    f = np.minimum(1.0, R / np.maximum(norms, 1e-300))
    _close(K.centred_norms_columns(Y, c), norms)
    _close(K.clipped_sum_columns(Y, c, R), diff @ f)
    P = Y[:, 0 : 2 * (n // 2) : 2] - Y[:, 1 : 2 * (n // 2) : 2]
    _close(K.pair_distances_columns(Y), np.sqrt(np.einsum("kj,kj->j", P, P)))


@pytest.mark.parametrize(("n", "d"), SHAPES)
def test_pair_statistics_kernel_equals_the_gather(n: int, d: int) -> None:
    X, _, _ = _data(n, d, seed=2)
    perm = np.random.default_rng(3).permutation(n)[: 2 * (n // 2)]
    first, second = perm[0::2], perm[1::2]
    want = np.square(X[first] - X[second]) * 0.5
    _close(K.half_squared_pair_diffs(X, first, second), want)


def test_the_callers_pick_the_kernel_on_large_arrays_only(monkeypatch: pytest.MonkeyPatch) -> None:
    X, c, s = _data(300, 40)
    calls: list[str] = []
    real = K.clipped_sum_rows

    def spy(*args: object) -> np.ndarray:
        calls.append("kernel")
        return real(*args)

    monkeypatch.setattr(K, "clipped_sum_rows", spy)
    small = clipped_sum(X, c, 50.0, scale=s)
    assert calls == []
    monkeypatch.setattr(K, "MIN_SIZE", 0)
    _close(clipped_sum(X, c, 50.0, scale=s), small)
    assert calls == ["kernel"]
    Y = np.ascontiguousarray(X.T)
    norms = centred_norms(Y, c, columns=True)
    _close(norms, np.linalg.norm(Y - c[:, None], axis=0))
    R = float(np.median(norms))  # IOME's noisy sum reuses the radius stage's norms: same sum
    np.testing.assert_array_equal(
        clipped_sum(Y, c, R, columns=True, norms=norms), clipped_sum(Y, c, R, columns=True)
    )


@pytest.mark.parametrize("estimator", [plan_l2, iome_paper])
@pytest.mark.parametrize(("n", "d"), [(400, 1), (300, 8), (300, 100)])
def test_estimators_with_the_kernels_equal_the_numpy_paths(
    estimator, n: int, d: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same draws, same decisions: the released means agree to the fingerprints' tolerance."""
    X, _, _ = _data(n, d, seed=4)
    bounds = (np.full(d, -200.0), np.full(d, 200.0))
    monkeypatch.setattr(K, "MIN_SIZE", 1 << 62)
    want = estimator(X, rho=0.5, bounds=bounds, rng=5)
    monkeypatch.setattr(K, "MIN_SIZE", 0)
    got = estimator(X, rho=0.5, bounds=bounds, rng=5)
    scale = float(np.max(np.abs(want.mean)))
    np.testing.assert_allclose(got.mean, want.mean, rtol=0, atol=1e-9 * scale)
    assert got.ledger.total() == pytest.approx(want.ledger.total(), rel=1e-12)


@pytest.mark.parametrize("estimator", [plan_l2, iome_paper])
def test_nan_is_refused_before_any_kernel_runs(estimator, monkeypatch: pytest.MonkeyPatch) -> None:
    X, _, _ = _data(50, 4)
    X[7, 2] = np.nan
    monkeypatch.setattr(K, "MIN_SIZE", 0)
    ran: list[str] = []
    for name in ("clipped_sum_rows", "clipped_sum_columns", "half_squared_pair_diffs"):
        monkeypatch.setattr(K, name, lambda *a, name=name: ran.append(name))
    with pytest.raises(ValueError, match="NaN"):
        estimator(X, rho=0.5, bounds=(np.full(4, -100.0), np.full(4, 100.0)), rng=0)
    assert ran == []


def test_importing_and_running_small_sizes_does_not_import_numba() -> None:
    code = (
        "import sys, numpy as np; import dpcore.estimators; "
        "from dpcore.estimators.plan import plan_l2; from dpcore.estimators.iome import iome_paper; "
        "x = np.random.default_rng(0).standard_normal((2000, 32)); b = (-50.0, 50.0); "
        "plan_l2(x, rho=1.0, bounds=b, rng=0); iome_paper(x, rho=1.0, bounds=b, rng=0); "
        "print('numba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_plan_checks_its_data_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """run_plan checks x; the variance stage does not scan it again (two passes per check)."""
    from dpcore._validation import check_data
    from dpcore.estimators.plan import compose, variances

    X, _, _ = _data(300, 6)
    shapes: list[tuple[int, ...]] = []

    def spy(x, **kw):
        shapes.append(np.shape(x))
        return check_data(x, **kw)

    for module in (compose, variances):
        monkeypatch.setattr(module, "check_data", spy)
    plan_l2(X, rho=0.5, bounds=(np.full(6, -200.0), np.full(6, 200.0)), rng=0)
    assert shapes.count(X.shape) == 1


@pytest.mark.parametrize("n", range(1, 2 * K.ROW_BLOCK + 2))
def test_clipped_sum_rows_takes_every_row_of_a_partial_block(n: int) -> None:
    """The rows go in blocks of ``ROW_BLOCK``: every count of rows left in the last block (none
    to ``ROW_BLOCK - 1``) adds each row once, with its own clip factor."""
    X, c, s = _data(n, 6, seed=n)
    Y = X * s - c
    norms = np.sqrt(np.einsum("jk,jk->j", Y, Y))
    R = float(np.median(norms))
    f = np.minimum(1.0, R / np.maximum(norms, 1e-300))
    _close(K.clipped_sum_rows(X, s, c, R), f @ Y)


def test_numba_is_imported_under_one_lock_by_every_lazy_kernel() -> None:
    # Home's warm-up thread and a page's run may compile their first kernels at once; both paths
    # (the lazy wrappers and the rotation) import numba through _kernels.numba under NUMBA_IMPORT.
    code = (
        "import sys, threading, numpy as np; from dpcore import _kernels, _kernels_rotation; "
        "held = []; lock = _kernels.NUMBA_IMPORT\n"
        "class Spy:\n"
        "    def __enter__(self): lock.acquire(); held.append(1)\n"
        "    def __exit__(self, *a): lock.release()\n"
        "_kernels.NUMBA_IMPORT = Spy(); "
        "x = np.ones((600, 512)); _kernels.max_magnitude_bits(x.reshape(-1).view(np.int64)); "
        "n1 = len(held); "
        "_kernels_rotation._kernel(); print(n1 > 0, len(held) > n1, 'numba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "True"], out.stdout + out.stderr
