"""Non-noise draws from the operating system's CSPRNG (:func:`os.urandom`).

Part of :mod:`dpcore.samplers` (the module docstring there is the contract).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

#: Redraws of negative discrete-Laplace values for the one-sided walk noise (each halves them).
MAX_REDRAWS = 200


def random_uint64(count: int) -> np.ndarray:
    """``count`` independent uniform 64-bit integers from :func:`os.urandom`."""
    return np.frombuffer(os.urandom(8 * int(count)), dtype=np.uint64).copy()


def random_unit(count: int) -> np.ndarray:
    """``count`` uniforms on [0, 1): 53 random bits each, exact multiples of 2^-53."""
    return (random_uint64(count) >> np.uint64(11)).astype(np.float64) * 2.0**-53


def _size(size: Any) -> tuple[int, ...]:
    if size is None:
        return ()
    return tuple(int(s) for s in np.atleast_1d(np.asarray(size, dtype=np.int64)))


def _shaped(flat: np.ndarray, shape: tuple[int, ...]) -> Any:
    return flat.reshape(shape) if shape else flat.reshape(())[()]


def bounded_integers(high: int, count: int) -> np.ndarray:
    """``count`` uniform integers in ``[0, high)`` by rejection (unbiased; 1 ≤ high ≤ 2^63)."""
    high = int(high)
    if not 1 <= high <= 2**63:
        raise ValueError(f"high must be in [1, 2^63]; got {high}.")
    bits = max(1, (high - 1).bit_length())
    mask = np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(2**64 - 1)
    out = np.empty(count, dtype=np.int64)
    todo = np.arange(count)
    for _ in range(MAX_REDRAWS):
        if todo.size == 0:
            return out
        v = random_uint64(todo.size) & mask
        ok = v < np.uint64(high)
        out[todo[ok]] = v[ok].astype(np.int64)
        todo = todo[~ok]
    raise RuntimeError("rejection sampling did not finish (probability below 2^-200).")


def _normals(shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    u1, u2 = 1.0 - random_unit(n), random_unit(n)
    return (np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)).reshape(shape)
