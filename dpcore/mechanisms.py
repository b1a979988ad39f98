"""The two additive-noise mechanisms every estimator is built from.

* Laplace: ``value + Lap(b)`` with ``b = Δ1 / epsilon`` is ``epsilon``-DP for a query with l1
  sensitivity ``Δ1`` (Dwork et al. 2006).
* Gaussian: ``value + N(0, s² I)`` with ``s = Δ2 / sqrt(2 rho)`` is ``rho``-zCDP for a query with l2
  sensitivity ``Δ2`` (Bun & Steinke 2016, Prop. 1.6; PLAN paper Lemma 2.5, specs/plan.md §1).

The sensitivity is the caller's: it depends on the neighbouring relation (replace-one doubles the
sensitivity of a sum compared with add/remove; specs/plan.md §1, specs/simplex.md §1).

References
----------
Dwork, McSherry, Nissim, Smith. "Calibrating Noise to Sensitivity in Private Data Analysis." TCC 2006.
Bun and Steinke. "Concentrated Differential Privacy." TCC 2016.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dpcore._validation import RngLike, as_generator, check_positive


class Release(NamedTuple):
    """A noisy value and the noise scale used (Laplace ``b`` or Gaussian standard deviation)."""

    value: np.ndarray | float
    scale: float


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Laplace scale ``b = sensitivity / epsilon``."""
    return check_positive(sensitivity, "sensitivity") / check_positive(epsilon, "epsilon")


def gaussian_std(sensitivity: float, rho: float) -> float:
    """Gaussian noise std ``sensitivity / sqrt(2 rho)`` for ``rho``-zCDP."""
    return check_positive(sensitivity, "sensitivity") / np.sqrt(2.0 * check_positive(rho, "rho"))


def _finite_value(value: np.ndarray | float) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(
            "value contains NaN or infinity; the mechanism needs a finite query answer."
        )
    return arr


def laplace_mechanism(
    value: np.ndarray | float, sensitivity: float, epsilon: float, *, rng: RngLike = None
) -> Release:
    """Release ``value`` with Laplace noise, ``epsilon``-DP for l1 sensitivity ``sensitivity``.

    Each coordinate gets independent ``Lap(sensitivity / epsilon)`` noise.

    Parameters
    ----------
    value : float or array
        The exact query answer.
    sensitivity : float
        l1 sensitivity of the query under the caller's neighbouring relation.
    epsilon : float
        Pure-DP budget spent by this release.
    rng : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    Release
        ``(noisy value, b)``.
    """
    b = laplace_scale(sensitivity, epsilon)
    arr = _finite_value(value)
    noisy = arr + as_generator(rng).laplace(0.0, b, size=arr.shape)
    return Release(noisy if arr.ndim else float(noisy), b)


def gaussian_mechanism(
    value: np.ndarray | float, sensitivity: float, rho: float, *, rng: RngLike = None
) -> Release:
    """Release ``value`` with Gaussian noise, ``rho``-zCDP for l2 sensitivity ``sensitivity``.

    Each coordinate gets independent ``N(0, sensitivity² / (2 rho))`` noise.

    Returns
    -------
    Release
        ``(noisy value, standard deviation)``.
    """
    s = gaussian_std(sensitivity, rho)
    arr = _finite_value(value)
    noisy = arr + s * as_generator(rng).standard_normal(arr.shape)
    return Release(noisy if arr.ndim else float(noisy), s)
