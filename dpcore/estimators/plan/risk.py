"""Public warnings before and during a PLAN run: is the centre's or the variances' budget too thin?

Every function here reads public values only (``n``, ``d``, ``rho``, the range width).

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), §2 budgets; docs/estimators/plan.md §2, §4c,
§10.10.
"""

from __future__ import annotations

import math

import numpy as np

from dpcore._validation import check_positive
from dpcore.estimators.plan.budget import (
    DEFAULT_SPLIT,
    MAX_AUTO_CENTER_SHARE,
    needed_center_share,
)
from dpcore.estimators.plan.variances import VARIANCE_CAP_SHARE


def thin_centre_warnings(
    n: int, d: int, rho: float, lo: np.ndarray, hi: np.ndarray, center_share: float | None
) -> tuple[str, ...]:
    """:func:`thin_budget_risk`'s public warning for the robust centre steps (empty without one)."""
    risk = thin_budget_risk(n, d, rho, float(np.max(hi - lo)), center_share=center_share)
    return () if risk is None else ("the centre's budget is thin. " + risk,)


def thin_budget_risk(
    n: int, d: int, rho: float, width: float, *, center_share: float | None = None
) -> str | None:
    """Before a run: a sentence when PLAN's centre budget is too thin for the range, else ``None``.

    Public inputs only (``n``, ``d``, ``rho``, the range ``width``). ``center_share`` is the share
    of ``rho`` the centre gets; ``None`` means the robust default, which raises the paper's 0.0625
    up to :data:`MAX_AUTO_CENTER_SHARE` when needed (:func:`needed_center_share`). When even that is
    not enough, some coordinates of the centre will likely land outside the data, the clip radius
    grows with them and the error is many times the typical one.

    The second sentence comes from :func:`expected_low_variances`: some of Algorithm 2's
    per-coordinate variance medians land far below their data, which matters only when a few
    coordinates vary much more than the rest. On the paper's grid the centre sentence flags no
    cell (it flags budgets below the grid, e.g. A, d = 1024, rho = 1/32, where the centre share
    would have to exceed :data:`MAX_AUTO_CENTER_SHARE`) and the variance sentence flags only
    C, d = 1024, rho = 1/16 (benchmarks/results/paper_grid_round2.md).

    References
    ----------
    docs/estimators/plan.md §2 (budgets), §10.10.
    """
    check_positive(width, "width")
    need = needed_center_share(n, d, rho)
    share = MAX_AUTO_CENTER_SHARE if center_share is None else float(center_share)
    low = expected_low_variances(n, d, rho)
    parts = []
    if need > share:
        rho_needed = rho * need / share
        n_needed = math.ceil(n * math.sqrt(need / share))
        parts.append(
            f"The budget is too thin for the range: PLAN's centre gets rho = {share * rho:.3g} for d = {d} "
            f"coordinates over a range {width:.3g} wide, and with n = {n} some coordinates of the centre will "
            f"likely land outside the data, making the error many times the typical one (n >= {n_needed} or "
            f"rho >= {rho_needed:.3g} avoids it)."
        )
    if low >= LOW_VARIANCE_ALERT:
        low = max(low, 1.0)  # "about 1" when the expected count is between the alert and 1
        parts.append(
            f"PLAN's per-coordinate variance estimates are thin: about {low:.0f} of the d = {d} private "
            "variances per run will land far below their data. That is harmless when the coordinates "
            "vary alike, but when a few vary much more than the rest (skewed data), such a miss on one "
            "of them inflates the clip radius and the noise, and some runs are several times worse "
            "than the typical one."
        )
    return " ".join(parts) or None


#: Expected number of variance medians per run below their data at which :func:`thin_budget_risk`
#: speaks (PLAN, C, d = 1024, rho = 1/16, the one cell of the paper's grid where it mattered: 0.7).
LOW_VARIANCE_ALERT = 0.1
#: Nats of low utility below Algorithm 2's data with :func:`variance_floor_ratio` (the empty stretch,
#: ~14, and the lower tail of ``log chi2_1`` below its 1% quantile, ~9) and the density of
#: ``log chi2_1`` at its median (``pdf(0.455) * 0.455 = 0.214``).
_LOW_NATS = 23.0
_LOG_CHI2_DENSITY = 0.214


def expected_low_variances(n: int, d: int, rho: float) -> float:
    """Public estimate of how many of PLAN's ``d`` variance medians per run land below their data.

    Each median is the exponential mechanism with ``eps = sqrt(8 rho_med / d)``
    (``rho_med = 0.1875 (1 - VARIANCE_CAP_SHARE) rho``) over ``m = n // 2`` group values in log space.
    A point at the bottom of the data has utility ``m/2`` below the median, so the low stretch of
    about :data:`_LOW_NATS` nats carries weight ``_LOW_NATS exp(-eps m / 4)`` against about
    ``(4 / eps) / (m f)`` near the median (``f`` the density of ``log chi2_1`` there; Gaussian
    coordinates). Returns ``d`` times that probability. Public inputs only.

    References
    ----------
    McSherry and Talwar (FOCS 2007); docs/estimators/plan.md §4c.
    """
    n, d = int(n), int(d)
    rho_med = DEFAULT_SPLIT["variance"] * (1.0 - VARIANCE_CAP_SHARE) * check_positive(rho, "rho")
    eps = math.sqrt(8.0 * rho_med / d)
    m = n // 2
    central = (4.0 / eps) / (m * _LOG_CHI2_DENSITY)
    return d * _LOW_NATS * math.exp(-eps * m / 4.0) / central
