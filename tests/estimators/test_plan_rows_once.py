"""PLAN on small arrays forms its scaled rows ``(x_j - mu~) * s`` once for the clip radius and the
noisy sum (docs/speed.md, "Compare's refinement, round 4"): the same norms and sums as the block
passes, and no copy on large arrays."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from dpcore import _kernels

R = importlib.import_module("dpcore.estimators.plan.release")  # the package re-exports release()


def _inputs(n: int, d: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(n * 7 + d)
    return (
        rng.normal(size=(n, d)) * 3.0,
        rng.normal(size=d),
        rng.uniform(0.2, 4.0, size=d),
        rng.uniform(0.0, 1.0, size=n),
    )


@pytest.mark.parametrize(("n", "d"), [(2000, 32), (2, 1), (65536, 1), (300, 200), (1, 5)])
def test_the_rows_give_the_norms_and_sums_of_the_block_passes(n: int, d: int) -> None:
    X, mu, s, w = _inputs(n, d)
    rows = R.scaled_rows(X, mu, s)
    assert rows is not None
    assert np.array_equal(R.scaled_norms(X, mu, s, rows), R.scaled_norms(X, mu, s))
    assert np.array_equal(
        R.scaled_weighted_sum(X, mu, s, w, rows), R.scaled_weighted_sum(X, mu, s, w)
    )


@pytest.mark.parametrize(("n", "d"), [(2049, 32), (70000, 1), (_kernels.MIN_SIZE // 8, 8)])
def test_no_copy_beyond_one_block(n: int, d: int) -> None:
    X, mu, s, _ = _inputs(n, d)
    assert R.scaled_rows(X, mu, s) is None


def test_plan_hands_the_threshold_rows_to_the_release(monkeypatch: pytest.MonkeyPatch) -> None:
    from dpcore.estimators.plan import compose

    seen: list[object] = []
    real = compose.release

    def spy(*args, **kwargs):
        seen.append(args[-1] if len(args) > 8 else kwargs.get("rows"))
        return real(*args, **kwargs)

    monkeypatch.setattr(compose, "release", spy)
    from dpcore import registry
    from dpcore.data import generate
    from dpcore.privacy import Budget

    data = generate("gaussian", n=2000, d=32, skew=1.0, rng=7)
    registry.run("plan", data, Budget.zcdp(0.5), rng=1)
    assert len(seen) == 1 and isinstance(seen[0], np.ndarray) and seen[0].shape == (2000, 32)
