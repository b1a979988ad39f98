"""The Laplace and Gaussian mechanisms: ``value`` plus noise of a calibrated scale.

* :func:`laplace`: ``value + b·Lap(1)`` per coordinate is ε-DP for ℓ1 sensitivity Δ when
  ``b = Δ / ε`` (Dwork et al. 2006); with ``columns = d`` it is ``d`` mechanisms of ε/d each.
* :func:`gaussian`: ``value + σ·N(0, 1)`` per coordinate is ρ-zCDP for ℓ2 sensitivity Δ when
  ``σ = Δ / √(2ρ)`` (Bun & Steinke 2016, Prop. 1.6).

References
----------
Dwork, McSherry, Nissim, Smith. "Calibrating Noise to Sensitivity in Private Data Analysis." TCC 2006.
Bun and Steinke. "Concentrated Differential Privacy." TCC 2016.
"""

from __future__ import annotations

import math
from typing import Any, Literal, NamedTuple

import numpy as np

from dpcore._validation import RngLike, as_generator, check_positive
from dpcore.mechanisms.backend import _columns, _finite_value, _positive_array, _release_backend
from dpcore.mechanisms.stages import DRAWING, _charge, _record


class Release(NamedTuple):
    """A noisy value, the noise scale used (Laplace ``b`` or Gaussian σ) and the noise added."""

    value: np.ndarray | float
    scale: Any
    noise: Any = None


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Laplace scale ``b = sensitivity / epsilon``."""
    return check_positive(sensitivity, "sensitivity") / check_positive(epsilon, "epsilon")


def gaussian_std(sensitivity: float, rho: float) -> float:
    """Gaussian noise std ``sensitivity / sqrt(2 rho)`` for ``rho``-zCDP."""
    return check_positive(sensitivity, "sensitivity") / np.sqrt(2.0 * check_positive(rho, "rho"))


def laplace_ratio(scale: Any, sensitivity: Any, epsilon: float, columns: int = 1) -> float:
    """Noise drawn over noise required for a Laplace draw: ``ε / Σ_r Δ_r / b_r`` (``b·ε/Δ`` for one
    column), the smallest over the value's coordinates when the scale varies."""
    b = np.asarray(scale, dtype=float)
    s = np.asarray(sensitivity, dtype=float)
    if columns == 1:
        return float(epsilon * np.min(b) / np.max(s))
    spent = float(np.sum(np.broadcast_to(s / b, (columns,))))
    return float(epsilon / spent)


def _extreme(a: Any, how: Any) -> float:
    """``how(a)`` (``np.min`` or ``np.max``) of an array or NumPy number, as a float; a 0-d value
    is its own extreme."""
    return float(a) if a.ndim == 0 else float(how(a))


def gaussian_ratio(scale: Any, sensitivity: Any, rho: float, columns: int = 1) -> float:
    """Noise drawn over noise required for a Gaussian draw: ``σ·√(2ρ)/Δ`` for one ℓ2 query,
    ``√(ρ / Σ_r Δ_r²/(2σ_r²))`` for ``columns`` per-coordinate ones."""
    sd = np.asarray(scale, dtype=float)
    s = np.asarray(sensitivity, dtype=float)
    if columns == 1:
        return float(_extreme(sd, np.min) * math.sqrt(2.0 * rho) / _extreme(s, np.max))
    spent = float(np.sum(np.broadcast_to(s * s / (2.0 * sd * sd), (columns,))))
    return float(math.sqrt(rho / spent))


# --------------------------------------------------------------------------------------------
# Laplace and Gaussian


def _additive(
    kind: Literal["laplace", "gaussian"],
    value: Any,
    scale: Any,
    rng: Any,
    shape: tuple[int, ...] | None,
    reps: int | None,
    sensitivity: np.ndarray,
) -> tuple[Any, Any]:
    arr = _finite_value(0.0 if shape is not None and value is None else value)
    out_shape = tuple(shape) if shape is not None else arr.shape
    if reps is not None:
        out_shape = (int(reps), *out_shape)
    backend = _release_backend(rng)
    token = DRAWING.set(True)
    try:
        if backend is not None:
            noisy = backend.add_noise(kind, np.broadcast_to(arr, out_shape), scale, sensitivity)
            return noisy, noisy - arr
        gen = as_generator(rng)
        if kind == "laplace":
            noise = scale * gen.laplace(0.0, 1.0, size=out_shape)
        else:
            noise = scale * gen.standard_normal(out_shape)
    finally:
        DRAWING.reset(token)
    noisy = arr + noise
    return (noisy if noisy.ndim else float(noisy)), noise


def laplace(
    value: Any,
    sensitivity: Any,
    epsilon: float,
    *,
    rng: RngLike | Any = None,
    scale: Any = None,
    columns: int = 1,
    shape: tuple[int, ...] | None = None,
    reps: int | None = None,
    note: str = "",
) -> Release:
    """Release ``value`` with Laplace noise, charging ε to the active stage.

    Parameters
    ----------
    value : float or array
        The exact query answer (``None`` with ``shape``: draw the noise alone).
    sensitivity : float or array
        ℓ1 sensitivity of the query (``columns = 1``), or each coordinate's sensitivity
        (``columns = d``: d queries of ε/d each).
    epsilon : float
        Pure-DP budget of the call.
    rng : None, int, numpy Generator or release backend
        Source of randomness.
    scale : float or array, optional
        The Laplace scale ``b`` the caller computed from its own formula; by default
        ``Δ / ε`` (``d·Δ_r / ε`` per column). The ledger records ``b·ε/Δ`` as the ratio.
    columns : int
        Number of independent per-coordinate queries the budget is split over.
    shape, reps : optional
        Draw noise of ``shape`` (value broadcast), or ``reps`` independent copies (simulations of
        the same release: charged once).
    note : str
        What the stage releases, for the ledger.

    Returns
    -------
    Release
        ``(noisy value, b, noise)``.

    Privacy
    -------
    ε-DP for the stated sensitivity (ε²/2-zCDP per column in a zCDP ledger).

    Examples
    --------
    >>> laplace(0.5, sensitivity=0.01, epsilon=1.0, rng=0).scale
    0.01
    """
    cols = _columns(columns)
    eps = check_positive(epsilon, "epsilon")
    sens = _positive_array(sensitivity, "sensitivity")
    if scale is None:
        b = sens * cols / eps if cols > 1 else np.float64(laplace_scale(float(np.max(sens)), eps))
    else:
        b = _positive_array(scale, "scale")
    _record("laplace", value, sens, b, cols)
    noisy, noise = _additive("laplace", value, b, rng, shape, reps, sens)
    ratio = laplace_ratio(b, sens, eps, cols)
    _charge(
        "laplace",
        "pure",
        eps,
        cols,
        note or f"Laplace, l1 sensitivity {float(np.max(sens)):.4g}",
        sensitivity=float(np.max(sens)),
        scale=float(np.max(b)),
        ratio=ratio,
        variates=int(np.size(noise)),
    )
    return Release(noisy, float(b) if np.ndim(b) == 0 else b, noise)


def gaussian(
    value: Any,
    sensitivity: Any,
    rho: float,
    *,
    rng: RngLike | Any = None,
    scale: Any = None,
    columns: int = 1,
    shape: tuple[int, ...] | None = None,
    reps: int | None = None,
    note: str = "",
) -> Release:
    """Release ``value`` with Gaussian noise, charging ρ (zCDP) to the active stage.

    Parameters are those of :func:`laplace`, with ``rho`` for the budget and ``sensitivity`` in
    ℓ2; the default ``scale`` is ``Δ / √(2ρ)`` (``Δ_r / √(2ρ/d)`` per column).

    Returns
    -------
    Release
        ``(noisy value, σ, noise)``.

    Privacy
    -------
    ρ-zCDP for the stated sensitivity; refused in a pure-DP ledger.

    Examples
    --------
    >>> round(gaussian(0.0, sensitivity=1.0, rho=0.5, rng=0).scale, 6)
    1.0
    """
    cols = _columns(columns)
    r = check_positive(rho, "rho")
    sens = _positive_array(sensitivity, "sensitivity")
    top = _extreme(sens, np.max)
    if scale is None:
        sd = sens / np.sqrt(2.0 * r / cols) if cols > 1 else np.float64(gaussian_std(top, r))
    else:
        sd = _positive_array(scale, "scale")
    _record("gaussian", value, sens, sd, cols)
    noisy, noise = _additive("gaussian", value, sd, rng, shape, reps, sens)
    ratio = gaussian_ratio(sd, sens, r, cols)
    _charge(
        "gaussian",
        "zcdp",
        r,
        1,
        note or f"Gaussian, l2 sensitivity {top:.4g}",
        sensitivity=top,
        scale=_extreme(sd, np.max),
        ratio=ratio,
        variates=int(np.size(noise)),
    )
    return Release(noisy, float(sd) if sd.ndim == 0 else sd, noise)
