"""Wider chunks of vectors for small dimensions in the randomised Hadamard rotation
(``rotation._CHUNK_VALUES``): the same rotated values as chunks of ``CHUNK`` vectors
(docs/speed.md, "Compare's refinement, round 4")."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import rotation as R


def _rotated(d: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(100, 3000)) if d <= 256 else 400
    x = rng.normal(size=(n, d)) * rng.uniform(0.1, 5.0, size=d)
    c = rng.normal(size=d)
    rot = R.RandomizedHadamard(d, rng=np.random.default_rng(seed + 10))
    a = rot.forward(x, center=c)
    return a, rot.forward_columns(x, center=c), rot.inverse(a[:7]), R.hadamard_transform(a)


@pytest.mark.parametrize("d", [3, 20, 32, 64, 100, 256, 1000])
def test_wide_chunks_give_the_values_of_chunks_of_128(
    monkeypatch: pytest.MonkeyPatch, d: int
) -> None:
    for seed in range(2):
        wide = _rotated(d, seed)
        with monkeypatch.context() as m:
            m.setattr(R, "_CHUNK_VALUES", 0)  # every chunk CHUNK vectors wide, as before
            narrow = _rotated(d, seed)
        for a, b in zip(wide, narrow, strict=True):
            assert np.array_equal(a, b)


def test_two_thousand_vectors_of_dimension_32_are_one_chunk() -> None:
    assert [m for _, m, _, _ in R._chunks(2000, 32)] == [2000]
    assert [m for _, m, _, _ in R._chunks(300, 2048)] == [32] * 9 + [12]  # large D: as before
