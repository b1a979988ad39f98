"""PLAN's CoinPress centre on small arrays scales the rows once (``x * s``) instead of in every
pass; large arrays keep the passes without a copy. Same centre either way
(docs/speed.md, "Compare's refinement, round 4")."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import _kernels, mechanisms
from dpcore.estimators import _localise
from dpcore.estimators.plan import recentre
from dpcore.privacy import Ledger


def _inputs(n: int, d: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(n + d)
    X = rng.normal(size=(n, d)) + 3.0
    lo, hi = np.full(d, -20.0), np.full(d, 20.0)
    return X, lo, hi, np.ones(d), rng.uniform(0.5, 2.0, size=d)


def _centre(X, lo, hi, sig, s, share: float, seed: int) -> np.ndarray:
    with mechanisms.stage(Ledger("zcdp"), "centre"):
        c, _ = recentre.coinpress_scaled_center(
            X, lo, hi, sig, s, rho=0.2, spread_share=share, rng=np.random.default_rng(seed)
        )
    return c


@pytest.mark.parametrize("share", [0.0, 0.25])
def test_small_arrays_pass_a_scaled_copy_and_large_ones_the_scale(
    monkeypatch: pytest.MonkeyPatch, share: float
) -> None:
    seen: list[object] = []
    real = _localise.coinpress_center

    def spy(y, *args, scale=None, **kwargs):
        seen.append(scale)
        return real(y, *args, scale=scale, **kwargs)

    monkeypatch.setattr(recentre, "coinpress_center", spy)
    small = _inputs(2000, 32)
    _centre(*small, share, 1)
    assert seen == [None]
    big = _inputs(_kernels.MIN_SIZE // 16 + 1, 16)
    _centre(*big, share, 1)
    assert seen[1] is big[-1]


@pytest.mark.parametrize("n", [2000, 513])
def test_a_scaled_copy_gives_the_numbers_of_the_scaled_passes(n: int) -> None:
    X, lo, hi, _, s = _inputs(n, 32)
    c0, r0 = (lo + hi) / 2.0 * s, float(np.linalg.norm((hi - lo) / 2.0 * s))
    for seed in range(5):
        out = []
        for Y, scale in ((X, s), (X * s, None)):
            g = np.random.default_rng(seed)
            with mechanisms.stage(Ledger("zcdp"), "centre"):
                gamma = _localise.private_spread(Y, 2.0 * r0, rho=0.05, scale=scale, rng=g)
                c, _ = _localise.coinpress_center(Y, c0, r0, gamma, rho=0.2, scale=scale, rng=g)
            out.append((gamma, c))
        assert out[0][0] == out[1][0]
        assert np.array_equal(out[0][1], out[1][1])
