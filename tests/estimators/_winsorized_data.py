"""Data and tolerances shared by the PMWM tests (tests/estimators/test_winsorized*.py)."""

from __future__ import annotations

import math

import numpy as np

BOUNDS = (-50.0, 50.0)


def paper_data(name: str, n: int, reps: int, rng: np.random.Generator) -> np.ndarray:
    """The v1 simulation data (spec §6), one dataset per column; true mean 5 for all."""
    if name == "Gau":
        return rng.normal(5.0, 1.0, (n, reps))
    if name == "Skw":
        return rng.exponential(1.0, (n, reps)) + 4.0
    if name == "Mix":
        comp = rng.random((n, reps)) < 0.5
        return np.where(comp, 0.0, 10.0) + rng.standard_normal((n, reps))
    if name == "Con":
        x = rng.normal(5.0, 1.0, (n, reps))
        x[: int(math.floor(0.2 * n))] += 10.0  # order is irrelevant to every estimator here
        return x
    raise ValueError(name)


def mse_tolerance(reps: int, paper_runs: int = 250, sigmas: float = 4.0) -> float:
    """Relative tolerance for comparing an MSE with the paper's.

    If errors are roughly normal, an MSE from R runs has relative standard error sqrt(2/R); the
    paper's cell used 250 runs. Allow ``sigmas`` combined standard errors.
    """
    return sigmas * math.sqrt(2.0 / paper_runs + 2.0 / reps)
