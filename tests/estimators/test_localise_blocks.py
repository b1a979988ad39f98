"""CoinPress and the pair distances on scaled rows without a scaled copy, and the block-by-block
norms and clipped sums (docs/speed.md): the same numbers as on the copy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import hadamard

from dpcore import mechanisms
from dpcore.estimators import _localise as L
from dpcore.privacy import Ledger
from dpcore.rotation import RandomizedHadamard


def _data(n: int = 700, d: int = 37) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = np.random.default_rng(4)
    x = 5.0 + g.standard_normal((n, d)) * np.linspace(0.2, 3.0, d)
    s = g.uniform(0.3, 2.5, d)
    return x, s, 5.0 * s + 0.1


def test_scale_gives_the_numbers_of_the_scaled_copy() -> None:
    # more rows than one block (_STEP_BLOCK // d = 1771 at d = 37), so several blocks are summed
    x, s, c = _data(n=4000)
    np.testing.assert_array_equal(L.clipped_sum(x, c, 6.0, scale=s), L.clipped_sum(x * s, c, 6.0))
    runs = []
    for y, scale in ((x * s, None), (x, s)):
        ledger = Ledger("zcdp")
        with mechanisms.stage(ledger, "centre"):
            gamma = L.private_spread(y, 100.0, rho=0.2, scale=scale, rng=np.random.default_rng(1))
            c_out, _ = L.coinpress_center(
                y, c, 60.0, gamma, rho=0.5, scale=scale, rng=np.random.default_rng(2)
            )
        runs.append((gamma, c_out, ledger.total()))
    assert runs[0][0] == runs[1][0] and runs[0][2] == pytest.approx(runs[1][2], rel=1e-15)
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_blocks_match_the_whole_array() -> None:
    x, _, c = _data()
    for y, cc, cols in ((x, c, False), (np.ascontiguousarray(x.T), c, True)):
        diff = x - c
        norms = np.linalg.norm(diff, axis=1)
        np.testing.assert_allclose(L.centred_norms(y, cc, columns=cols), norms, rtol=1e-14)
        f = np.minimum(1.0, 6.0 / norms)
        got = L.clipped_sum(y, cc, 6.0, columns=cols)
        np.testing.assert_allclose(got, f @ diff, rtol=1e-12, atol=1e-12 * np.abs(diff).sum())


def test_scale_is_for_rows_only() -> None:
    x, s, c = _data()
    with pytest.raises(ValueError, match="rows"):
        L.coinpress_center(x.T, c, 60.0, 1.0, rho=0.5, columns=True, scale=s, rng=0)
    with pytest.raises(ValueError, match="rows"):
        L.pair_distance_median(x.T, 100.0, rho=0.5, columns=True, scale=s, rng=0)


@pytest.mark.parametrize("d", [600, 2048])
def test_three_factor_rotation_matches_the_dense_definition(d: int) -> None:
    # D = 1024 = 8 * 8 * 16 and 2048 = 8 * 16 * 16: the Sylvester factors with the signs folded in
    R = RandomizedHadamard(d, rng=3)
    D = R.dim
    H = hadamard(D).astype(float) / np.sqrt(D)
    x = np.random.default_rng(5).standard_normal((40, d))
    want = np.zeros((40, D))
    want[:, :d] = x
    for t in range(3):  # rows: y <- H (D_t y)
        want = (want * R.signs[t]) @ H.T
    np.testing.assert_allclose(R.forward(x), want, atol=1e-11)
    np.testing.assert_allclose(R.inverse(R.forward(x)), x, atol=1e-11)
    if (D.bit_length() - 1) % 2 == 0:  # D^1.5 a power of two: dyadic inputs rotate exactly
        b = np.random.default_rng(6).integers(0, 2, (5, d)) - 0.5
        sums = R.forward(b) * D**1.5
        np.testing.assert_array_equal(sums, np.rint(sums * 2) / 2)
