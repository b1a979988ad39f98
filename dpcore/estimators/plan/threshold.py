"""PLAN's clip radius stage (Algorithm 1, line 6, the threshold): a private quantile of the scaled
norms, with the rank slack ``k`` and the universe ``U`` it is searched in.

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), Algorithm 1 line 6, Listing 1;
docs/estimators/plan.md §2, §10.5–10.8, §10.16.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import mechanisms, quantiles
from dpcore._validation import check_positive, check_probability
from dpcore.estimators.plan.budget import STAGE_LABELS
from dpcore.estimators.plan.options import PlanOptions
from dpcore.estimators.plan.release import scaled_norms, scaled_rows
from dpcore.estimators.plan.scale import Scale
from dpcore.privacy import Ledger
from dpcore.quantiles.coordinate import QuantileMethod


@dataclass(frozen=True)
class Threshold:
    """The clip radius stage's outputs: ``C``, the rank slack ``k``, the quantile aimed at, the
    universe ``U``, the scaled norms (data, never released), the stage's public warnings and, on
    small arrays, the scaled rows the norms were taken of (data, for the release stage)."""

    radius: float
    rank_slack: float
    clip_quantile: float
    universe: float
    norms: np.ndarray
    warnings: tuple[str, ...] = ()
    rows: np.ndarray | None = None


def rank_slack(
    n: int,
    rho_radius: float,
    *,
    width: float,
    method: QuantileMethod = "exponential",
    steps: int = 20,
    beta: float = 0.1,
    include_sqrt_n: bool = True,
) -> float:
    """``k = sqrt(n) + rank error`` of the clip quantile (docs/estimators/plan.md §2, §10.16).

    Exponential mechanism: [R]'s ``sqrt((T/2) ln(T/beta) / rho_radius)`` with ``T = max(ln width, 1)``.
    Binary search: Lemma 2.8, ``sqrt(T ln(T/beta) / (2 rho_radius))`` with ``T = steps``.
    ``include_sqrt_n=False`` drops the ``sqrt(n)`` term (clip essentially nothing).
    """
    r = check_positive(rho_radius, "rho_radius")
    b = check_probability(beta, "beta")
    if method == "exponential":
        T = max(math.log(check_positive(width, "width")), 1.0)
        err = math.sqrt(T / 2.0 * math.log(T / b) / r)
    elif method == "binary_search":
        err = quantiles.rank_error_bound(steps, r, b)
    else:
        raise ValueError(f"quantile must be 'exponential' or 'binary_search'; got {method!r}.")
    return (math.sqrt(n) if include_sqrt_n else 0.0) + err


def radius_universe(
    kind: str | float,
    *,
    sigma_hat: np.ndarray,
    scale: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    n: int,
    beta: float = 0.1,
) -> float:
    """Upper end ``U`` of the clip-radius search ``[0, U]`` (docs/estimators/plan.md §2,
    §10.5–10.8).

    ``"range"``: ``||(hi - lo) * s||_2``, the largest scaled norm of ``x - c`` with ``x`` and ``c`` in
    the box (safe). ``"trimmed"``: ``sqrt(ln max(n, d) ln(1/beta) sum_i sigma^_i^2 s_i^2)`` (for
    ``p = 2``: ``sqrt(ln max(n,d) ln(1/beta) ||sigma^||_1)``), capped at ``"range"``. A number is
    used as given.
    """
    safe = float(np.linalg.norm((hi - lo) * scale))
    if isinstance(kind, (int, float, np.floating, np.integer)) and not isinstance(kind, bool):
        return check_positive(kind, "radius_universe")
    if kind == "range":
        return safe
    if kind == "trimmed":
        d = scale.size
        expected_sq = float(np.sum((sigma_hat * scale) ** 2))
        u = math.sqrt(math.log(max(n, d, 3)) * math.log(1.0 / beta) * expected_sq)
        return min(u, safe) if u > 0 else safe
    raise ValueError(
        f"radius_universe must be 'trimmed', 'range' or a positive number; got {kind!r}."
    )


def clip_slack(spec: PlanOptions, n: int, rho_radius: float, width: float) -> float:
    """The rank slack ``k`` of the clip quantile ``1 - k/n`` (public: ``n``, the radius budget, the
    widest public range ``width`` and the options)."""
    kind = spec.rank_slack_kind
    if kind in {"plan", "error_only"}:
        head = math.sqrt(n) if kind == "plan" else 0.0
        if spec.log_grid_radius:
            return head + quantiles.log_grid_rank_error(rho_radius, spec.beta)
        return rank_slack(
            n,
            rho_radius,
            width=width,
            method=spec.quantile,
            steps=spec.steps,
            beta=spec.beta,
            include_sqrt_n=kind == "plan",
        )
    k = float(kind)
    if not math.isfinite(k) or k < 0:
        raise ValueError(
            f"rank_slack_kind must be 'plan', 'error_only' or a number >= 0; got {kind!r}."
        )
    return k


def threshold(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    mu: np.ndarray,
    scale: Scale,
    spec: PlanOptions,
    rho_radius: float,
    ledger: Ledger,
    g: Any,
) -> Threshold:
    """The clip radius ``C``: a private ``(1 - k/n)``-quantile of the scaled norms on ``[0, U]``.

    Privacy
    -------
    Replace-one: one row changes one norm, so the rank quantile has sensitivity 1; stage "clip
    radius", ``rho_radius`` (log-grid exponential mechanism, or the paper's quantile routine).
    """
    n = X.shape[0]
    k = clip_slack(spec, n, rho_radius, float(np.max(hi - lo)))
    q_clip = min(max(1.0 - k / n, 0.5), 1.0 - 0.5 / n)
    warnings_: tuple[str, ...] = ()
    if k / n > 0.1:
        warnings_ = (
            f"rank slack k = {k:.1f} is {k / n:.0%} of n: the clip quantile is clamped to "
            f"{q_clip:.3f}; n is small for this budget (PLAN needs n >> sqrt(d/rho)).",
        )
    assert spec.radius_universe_kind is not None
    U = radius_universe(
        spec.radius_universe_kind,
        sigma_hat=scale.sigma_hat,
        scale=scale.s,
        lo=lo,
        hi=hi,
        n=n,
        beta=spec.beta,
    )
    rows = scaled_rows(X, mu, scale.s)  # y_j = (x_j - mu~) * s as one array on small data
    norms = scaled_norms(X, mu, scale.s, rows)  # ||y_j||
    if spec.log_grid_radius:
        how = f"exponential mechanism on a log grid in [{U * 1e-9:.3g}, {U:.4g}]"
    else:
        how = f"on [0, {U:.4g}] ({spec.quantile})"
    note = f"private {q_clip:.4f}-quantile of the scaled norms {how}"
    method = "log_grid" if spec.log_grid_radius else spec.quantile
    with mechanisms.stage(ledger, STAGE_LABELS["radius"], note=note):
        # The log grid stops at the (trimmed) universe U: a radius capped there bounds the noise
        # even when a few centre coordinates are off.
        C = quantiles.norm_quantile(
            norms, q_clip, U, rho=rho_radius, method=method, steps=spec.steps, rng=g
        )
    return Threshold(max(C, U * 1e-12), k, q_clip, U, norms, warnings_, rows)
