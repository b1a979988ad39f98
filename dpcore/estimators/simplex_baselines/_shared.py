"""What the simplex baselines share: the sum's sensitivity per value transform, the budget split,
and the diagnostics record (docs/estimators/simplex.md §1, §3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore._validation import check_real
from dpcore.estimate import (
    Diagnostics,
    Estimate,
)
from dpcore.estimators.simplex import (
    Mechanism,
    Preprocessed,
    check_relation,
    nonprivate_counts,
)
from dpcore.privacy import Ledger

# --------------------------------------------------------------------------------------------
# sensitivities


def sum_sensitivity(
    data: Preprocessed, mechanism: Mechanism, neighbouring: str, centring: str
) -> float:
    """Sensitivity of ``sum_i u_i`` for the value transform ``centring`` (see the module docstring).

    ``centring``: ``"shift"`` (``u = z``), ``"centre"`` (``u = z - w/2``) or ``"raw"`` (``u = z + L``).
    """
    rel = check_relation(neighbouring)
    w, R = data.widths, data.radius
    p = 1 if mechanism == "laplace" else 2
    if centring == "shift":
        base = float(np.linalg.norm(w, p))
        return (
            min(R, base)
            if rel == "add-remove"
            else min((2.0 if p == 1 else math.sqrt(2.0)) * R, base)
        )
    if centring == "centre":
        return float(np.linalg.norm(w, p)) / (2.0 if rel == "add-remove" else 1.0)
    if centring == "raw":
        a = np.maximum(np.abs(data.lower), np.abs(data.upper))
        return float(np.linalg.norm(a, p)) if rel == "add-remove" else float(np.linalg.norm(w, p))
    raise ValueError(f"centring must be 'shift', 'centre' or 'raw'; got {centring!r}.")


def _values(data: Preprocessed, centring: str) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``u`` whose noisy sum is released, and the base added back to ``sum u / n``."""
    if centring == "shift":
        return data.z, data.lower
    if centring == "centre":
        return data.z - data.widths / 2.0, data.lower + data.widths / 2.0
    return data.z + data.lower, np.zeros(data.d)


def _split(split: float | str, mechanism: Mechanism, sens: float) -> float:
    if isinstance(split, str):
        if split != "opendp":
            raise ValueError(f"split must be a fraction in (0, 1) or 'opendp'; got {split!r}.")
        return sens / (sens + 1.0) if mechanism == "laplace" else sens**2 / (sens**2 + 1.0)
    return check_real(
        split,
        "split (the budget fraction for the sum)",
        low=0.0,
        high=1.0,
        open_low=True,
        open_high=True,
        hint="Or pass 'opendp'.",
    )


def _unit(mechanism: Mechanism) -> tuple[str, str]:
    return ("ε", "Laplace") if mechanism == "laplace" else ("ρ", "Gaussian")


@dataclass(kw_only=True)
class NoisySumDiagnostics(Diagnostics):
    """The simplex baselines' specifics (docs/estimators/simplex.md §3, B1-B4); a field a baseline
    has not is ``None``.

    Attributes
    ----------
    mechanism : str
        ``"laplace"`` or ``"gaussian"``.
    sensitivity, noise_scale, noise_variance : float or None
        B1: the noisy sum's sensitivity, noise scale and variance.
    split : float or None
        B2-B4: the share of the budget spent on the sum.
    sum_sensitivity, sum_noise_variance, count_noise_variance, noisy_count : float or None
        B2/B3: the sum's sensitivity and noise variance, the count's noise variance, the noisy count.
    resized_n, imputed : int or None
        B4: the noisy size the data were resized to, and how many rows were imputed.
    theory : str or None
        B4: where its error comes from (simulation only).
    """

    mechanism: str
    sensitivity: float | None = None
    noise_scale: float | None = None
    noise_variance: float | None = None
    split: float | None = None
    sum_sensitivity: float | None = None
    sum_noise_variance: float | None = None
    count_noise_variance: float | None = None
    noisy_count: float | None = None
    resized_n: int | None = None
    imputed: int | None = None
    theory: str | None = None


def _estimate(
    means: np.ndarray,
    noiseless: np.ndarray,
    ledger: Ledger,
    std: np.ndarray,
    data: Preprocessed,
    extra: dict[str, Any],
    center: np.ndarray | None = None,
) -> Estimate:
    """One release as an Estimate; ``extra`` holds the fields of :class:`NoisySumDiagnostics`."""
    diag = NoisySumDiagnostics(
        noiseless_mean=noiseless,
        center=center,
        clip_interval=(data.lower, data.upper),
        clipped=data.clipped,
        noise_std=std,
        nonprivate=nonprivate_counts(data),
        **extra,
    )
    return Estimate(mean=means[0], ledger=ledger, diagnostics=diag)
