"""What the simplex tests share: the Monte Carlo repetitions, a uniform sample and the
variance tolerance.
"""

from __future__ import annotations

import math

import numpy as np

REPS = 200_000


def uniform_sample(n: int = 100, R: float = 100.0, seed: int = 42) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0, R, n)


def var_tol(reps: int, kurtosis: float = 6.0) -> float:
    """4 standard errors of a sample variance relative to the truth: sqrt((κ - 1)/reps).

    κ = 6 is the Laplace kurtosis (the heaviest noise here; Gaussian has κ = 3)."""
    return 4.0 * math.sqrt((kurtosis - 1.0) / reps)
