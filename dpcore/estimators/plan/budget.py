"""PLAN's budget stage: which stages spend, their shares of ``rho`` and their exact budgets.

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), §2 "Budgets", Listing 1; docs/estimators/plan.md
§2, §10.10.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from dpcore._validation import check_positive
from dpcore.estimators.plan.options import PlanOptions
from dpcore.privacy import split_budget
from dpcore.quantiles.coordinate import C2F_BINS, C2F_HISTOGRAM_SHARE, C2F_LEVELS

#: The paper's experimental split (docs/estimators/plan.md §2 "Budgets").
DEFAULT_SPLIT: dict[str, float] = {
    "center": 0.0625,
    "variance": 0.1875,
    "radius": 0.1875,
    "noise": 0.5625,
}
#: Split when no variance is estimated (oracle, no scaling): the centre gets the preprocessing share.
NO_VARIANCE_SPLIT: dict[str, float] = {"center": 0.25, "radius": 0.1875, "noise": 0.5625}
#: Split of the binary instantiation: the centre is the free frequency vector.
BINARY_SPLIT: dict[str, float] = {"variance": 0.25, "radius": 0.1875, "noise": 0.5625}
STAGES = ("center", "variance", "radius", "noise")
#: The ledger's name of each stage.
STAGE_LABELS = {
    "center": "centre (coordinate medians)",
    "variance": "variances",
    "radius": "clip radius",
    "noise": "noisy sum",
}
#: Largest share of ``rho`` the robust default moves to the centre when the range is wide (IOME's
#: median share).
MAX_AUTO_CENTER_SHARE = 0.5


def needed_center_share(
    n: int,
    d: int,
    rho: float,
    *,
    bins: int = C2F_BINS,
    levels: int = C2F_LEVELS,
    histogram_share: float = C2F_HISTOGRAM_SHARE,
) -> float:
    """Smallest share of ``rho`` for which the coarse-to-fine centre's zoom test is safe.

    The test accepts three adjacent bins when their noisy count reaches ``3n/4``; that sum carries
    Gaussian noise of std ``sigma_t = sqrt(3 d / rho_l)`` with ``rho_l = histogram_share * share * rho
    / levels``. Among the ``bins * d`` candidate windows an empty one passes about
    ``bins * d * Phi(-z)`` times, ``z = 0.75 n / sigma_t``; ``z >= sqrt(2 ln(bins d))`` keeps that
    below one. Solving for the share gives ``2 ln(bins d) * 3 d * levels / (0.5625 n**2 * histogram_share * rho)``.
    Public inputs only.
    """
    n, d = int(n), int(d)
    rho = check_positive(rho, "rho")
    need_sq = 2.0 * math.log(bins * d)
    return need_sq * 3.0 * d * levels / (0.5625 * n * n * histogram_share * rho)


@dataclass(frozen=True)
class StageBudgets:
    """The budget stage's output.

    Attributes
    ----------
    total : float
        ``rho``.
    fractions, budgets : dict
        Share and rho of each stage that spends; ``math.fsum(budgets.values()) == total``.
    auto_share : bool
        Whether the centre's share was raised by the public rule.
    """

    total: float
    fractions: dict[str, float]
    budgets: dict[str, float]
    auto_share: bool

    @property
    def thin_share(self) -> float | None:
        """The centre share the thin-budget warning checks (``None``: the automatic rule)."""
        return None if self.auto_share else self.fractions["center"]


def stage_budgets(spec: PlanOptions, n: int, d: int, rho: float) -> StageBudgets:
    """Shares of ``rho`` per stage and their budgets (:func:`dpcore.privacy.split_budget`).

    The default is the paper's ``0.0625/0.1875/0.1875/0.5625``; without a variance stage the centre
    gets ``0.25``; binary data ``variance 0.25`` (free centre). With a robust centre (CoinPress or
    coarse-to-fine) and no explicit split the centre's share is raised to
    ``min(needed_center_share(n, d, rho), MAX_AUTO_CENTER_SHARE)`` when larger, taken from the
    noise.

    Privacy
    -------
    Public values only (``n``, ``d``, ``rho`` and the options).
    """
    used = {"radius", "noise"}
    if spec.center == "median":
        used.add("center")
    if spec.variances in ("private", "binary"):
        used.add("variance")
    if used == {"center", "variance", "radius", "noise"}:
        default = DEFAULT_SPLIT
    elif "variance" in used:
        default = BINARY_SPLIT  # free centre: the preprocessing share goes to the variances
    elif "center" in used:
        default = NO_VARIANCE_SPLIT
    else:
        default = {"radius": 0.4375, "noise": 0.5625}
    fractions = _check_split(spec.budget_split, default, used)
    auto = spec.budget_split is None and spec.centre_run in ("coinpress", "coarse_to_fine")
    if auto:
        share = min(max(fractions["center"], needed_center_share(n, d, rho)), MAX_AUTO_CENTER_SHARE)
        if share > fractions["center"]:
            fractions = {
                **fractions,
                "noise": fractions["noise"] - (share - fractions["center"]),
                "center": share,
            }
    positive = {s: fractions[s] for s in STAGES if fractions.get(s, 0.0) > 0}
    return StageBudgets(rho, fractions, split_budget(rho, positive), auto)


def _check_split(
    split: Mapping[str, float] | None, default: dict[str, float], used: set[str]
) -> dict[str, float]:
    fr = dict(default if split is None else split)
    unknown = set(fr) - set(STAGES)
    if unknown:
        raise ValueError(
            f"budget_split has unknown stage(s) {sorted(unknown)}; use {list(STAGES)}."
        )
    vals = np.array(list(fr.values()), dtype=float)
    if (
        np.any(~np.isfinite(vals))
        or np.any(vals < 0)
        or not math.isclose(float(vals.sum()), 1.0, rel_tol=1e-9)
    ):
        raise ValueError(f"budget_split fractions must be >= 0 and sum to 1; got {fr}.")
    for stage in used:
        if fr.get(stage, 0.0) <= 0:
            raise ValueError(
                f"budget_split must give the {stage!r} stage a positive share; got {fr}."
            )
    for stage, v in fr.items():
        if v > 0 and stage not in used:
            raise ValueError(
                f"budget_split gives {stage!r} a share but this configuration spends nothing "
                f"there; move it to one of {sorted(used)}."
            )
    return fr
