"""Private quantiles, vectorised over the columns of a data matrix.

Three routines, each used by several estimators:

* :func:`binary_search_quantile` -- noisy binary search with Gaussian counts, ``rho``-zCDP
  (Smith 2011; Huang, Liang & Yi 2021; PLAN paper Lemma 2.8; docs/estimators/plan.md §3a).
* :func:`exponential_quantile` -- the exponential mechanism over the gaps of the sorted data
  (Smith 2011; Kaplan, Schnapp & Stemmer 2022), pure ``epsilon``-DP or ``rho``-zCDP
  (docs/estimators/plan.md §3b).
* :func:`unbounded_quantile` -- Durfee's AboveThreshold walk over a geometric grid with one-sided
  exponential noise, pure DP (or Gaussian noise for zCDP) (Durfee 2023; Ramsay & Spicker 2025;
  docs/estimators/winsorized.md §2.1, §2.4, §2.6).

Conventions shared by all three (docs/architecture.md):

* ``x`` is 1-D (``n`` values; the result is a ``float``) or 2-D (``n`` rows by ``d`` columns; the
  result is an array of shape ``(d,)``, one quantile per column).
* The budget passed is the **total** for the call. With ``d`` columns each column gets
  ``budget / d`` (``rho / d``, ``epsilon / d``), and basic composition over the columns gives the
  total back.
* Neighbouring relation: replace-one (bounded DP). ``n`` is public and two data sets are neighbours
  when they differ in exactly one row (so in at most one value of every column).
* ``bounds=(lower, upper)`` are public, chosen without looking at the data; scalars or per-column
  arrays.
* Randomness comes only from the keyword-only ``rng`` (``None``, an int seed or a
  ``numpy.random.Generator``), never from global numpy state.

References
----------
Smith, A. "Privacy-preserving statistical estimation with optimal convergence rates." STOC 2011.
Huang, Z., Liang, Y. and Yi, K. "Instance-optimal mean estimation under differential privacy."
NeurIPS 2021.
Aumüller, M., Lebeda, C. J., Nelson, B. and Pagh, R. "PLAN: Variance-aware private mean
estimation." PETS 2024 (arXiv 2306.08745), Lemma 2.8; docs/estimators/plan.md §3.
Kaplan, H., Schnapp, S. and Stemmer, U. "Differentially private approximate quantiles." ICML 2022.
Durfee, D. "Unbounded differentially private quantile and maximum estimation." NeurIPS 2023.
Ramsay, K. and Spicker, D. "Improved subsample-and-aggregate via the private modified winsorized
mean." arXiv 2501.14095 (2025); docs/estimators/winsorized.md §2.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dpcore import limits
from dpcore._validation import (
    check_bounds,
    check_data,
)

Bounds = tuple[ArrayLike, ArrayLike]


#: Largest number of grid points the unbounded quantile will build per column.
MAX_GRID_SIZE = 10_000_000


#: Elements per working array of the unbounded quantile before columns are processed in chunks.
_CHUNK_ELEMENTS = 1 << 22


# ----------------------------------------------------------------------------------------------
# shared helpers
# ----------------------------------------------------------------------------------------------


def _as_columns(x: ArrayLike) -> tuple[np.ndarray, bool]:
    """Return ``x`` as an ``(n, d)`` float array and whether the input was 1-D."""
    arr = check_data(x, name="x")
    if arr.ndim == 1:
        return arr[:, None], True
    return arr, False


def _finish(values: np.ndarray, one_d: bool) -> float | np.ndarray:
    return float(values[0]) if one_d else values


def _check_steps(steps: Any) -> int:
    if isinstance(steps, (bool, np.bool_)) or not isinstance(steps, (int, np.integer)):
        raise ValueError(
            f"steps must be a positive integer number of binary-search steps; got {steps!r}."
        )
    if steps < 1:
        raise ValueError(f"steps must be at least 1 (typically 10 to 40); got {steps}.")
    if steps > limits.MAX_STEPS:
        raise ValueError(
            f"steps = {steps:,} is too many (typically 10 to 40); {limits.limit_hint('MAX_STEPS')}"
        )
    return int(steps)


def _check_beta(beta: Any) -> float:
    try:
        b = float(beta)
    except (TypeError, ValueError) as err:
        raise ValueError(f"beta must be a number greater than 1; got {beta!r}.") from err
    if not (math.isfinite(b) and b > 1.0):
        raise ValueError(
            f"beta must be a finite grid ratio greater than 1 (the papers use 1.001); got {beta!r}."
        )
    return b


def check_public_bounds(
    bounds: Any, d: int | None = None, *, name: str = "bounds"
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`dpcore._validation.check_bounds`, refusing NaN or infinite ends with a message that
    says what to pass (estimators call it before anything is spent)."""
    if bounds is not None:
        try:
            ends = [np.asarray(b, dtype=float) for b in bounds]
        except (TypeError, ValueError, OverflowError):  # check_bounds names the problem
            ends = []
        if any(not np.all(np.isfinite(e)) for e in ends):
            raise ValueError(
                f"{name} must be finite numbers (no NaN or infinity): pass a public range "
                "(lower, upper) chosen without looking at the data, e.g. the known range of a "
                "measurement."
            )
    return check_bounds(bounds, d, name=name)
