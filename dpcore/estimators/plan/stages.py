"""PLAN's stages besides the centre: budget split, variances, clip radius (threshold) and release.

Each stage is one function of a :class:`PlanRun` (the data, the public box, the resolved options,
the budgets, the ledger and the generator), in the order :func:`~dpcore.estimators.plan.plan`
composes them; every noise draw is a :mod:`dpcore.mechanisms` call inside a ledger stage.

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), Algorithm 1, Listing 1, Algorithm 2;
docs/estimators/plan.md §2–§5, §10.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcore import mechanisms, quantiles
from dpcore._validation import check_positive, check_probability
from dpcore.estimators.plan.core import (
    _TINY,
    BINARY_SPLIT,
    DEFAULT_SPLIT,
    NO_VARIANCE_SPLIT,
    STAGE_LABELS,
    STAGES,
    _noisy_sum,
    _row_norms,
    _scaled_rows,
)
from dpcore.estimators.plan.risk import MAX_AUTO_CENTER_SHARE, needed_center_share
from dpcore.estimators.plan.variances import (
    binary_frequencies,
    binary_variances,
    variance_cap,
    variance_estimate,
    variance_floor_ratio,
)
from dpcore.privacy import Ledger, split_budget
from dpcore.quantiles.coordinate import QuantileMethod

if TYPE_CHECKING:
    from dpcore.estimators.plan.spec import PlanSpec


@dataclass
class PlanRun:
    """One PLAN run's state, passed from stage to stage.

    Attributes
    ----------
    X, lo, hi : the data (n, d) and the public box.
    spec : the resolved options (:meth:`PlanSpec.resolved`).
    rho : total zCDP budget.
    fractions, budgets : share and rho per stage (:func:`stage_budgets`).
    auto_share : whether the centre's share was raised by the public rule.
    ledger, g : the run's ledger and generator.
    warnings, extra : public warnings and the diagnostics gathered so far.
    """

    X: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    spec: PlanSpec
    rho: float
    fractions: dict[str, float]
    budgets: dict[str, float]
    auto_share: bool
    ledger: Ledger
    g: Any
    warnings: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    frequency_ledger: Ledger | None = None

    @property
    def thin_share(self) -> float | None:
        """The centre share the thin-budget warning checks (``None``: the automatic rule)."""
        return None if self.auto_share else self.fractions["center"]


@dataclass(frozen=True)
class Threshold:
    """The clip radius stage's outputs: ``C``, the rank slack ``k``, the quantile aimed at, the
    universe ``U`` and the scaled norms (data, never released)."""

    radius: float
    rank_slack: float
    clip_quantile: float
    universe: float
    norms: np.ndarray


# -- budget split -------------------------------------------------------------------------------


def stage_budgets(
    spec: PlanSpec, n: int, d: int, rho: float
) -> tuple[dict[str, float], dict[str, float], bool]:
    """Shares of ``rho`` per stage, their budgets (summing to ``rho`` exactly) and whether the
    centre's share was raised by the public rule.

    The default is the paper's ``0.0625/0.1875/0.1875/0.5625``; without a variance stage the centre
    gets ``0.25``; binary data ``variance 0.25`` (free centre). With a robust centre (CoinPress or
    coarse-to-fine) and no explicit split the centre's share is raised to
    ``min(needed_center_share(n, d, rho), 0.5)`` when larger, taken from the noise.

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
    return fractions, split_budget(rho, positive), auto


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


# -- variances (Algorithm 2, or the binary frequencies) ---------------------------------------


def private_frequencies(run: PlanRun) -> np.ndarray | None:
    """Binary data: the private frequencies ``q~`` (the variance stage's release), else ``None``.

    Drawn first and charged as the variance stage, in that stage's place in the ledger.

    Privacy
    -------
    Replace-one: the Gaussian mechanism on the clamped mean (l2 sensitivity ``||hi - lo||_2 / n``),
    ``rho_variance`` (:func:`~dpcore.estimators.plan.variances.binary_frequencies`).
    """
    if run.spec.variances != "binary":
        return None
    run.frequency_ledger = Ledger("zcdp")
    with mechanisms.stage(run.frequency_ledger, STAGE_LABELS["variance"]):
        q, f_std = binary_frequencies(
            run.X, (run.lo, run.hi), rho=run.budgets["variance"], rng=run.g
        )
    run.extra["frequencies"] = q
    run.extra["frequency_noise_std"] = f_std
    return q


def estimate_variances(
    run: PlanRun, q_tilde: np.ndarray | None, sigma_known: np.ndarray | None
) -> np.ndarray:
    """The raw ``sigma^`` (before regularising): Algorithm 2, ``q~ (1 - q~)``, the oracle or ones.

    Privacy
    -------
    Replace-one: Algorithm 2 charges stage "variances" ``rho_variance`` (:func:`_private_sigma`);
    the binary frequencies' ledger line joins here; the oracle and ones spend nothing.
    """
    spec = run.spec
    if spec.variances == "private":
        return _private_sigma(
            run.X,
            run.lo,
            run.hi,
            run.budgets["variance"],
            spec.variance_cap_share,
            spec.pairs_per_group,
            spec.quantile,
            spec.steps,
            spec.beta,
            run.ledger,
            run.g,
        )
    if spec.variances == "binary":
        assert q_tilde is not None and run.frequency_ledger is not None
        run.ledger.absorb(run.frequency_ledger)
        return np.sqrt(binary_variances(q_tilde))
    if spec.variances == "oracle":
        assert sigma_known is not None
        return sigma_known
    return np.ones(run.X.shape[1])


def _private_sigma(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    rho_v: float,
    cap_share: float,
    pairs_per_group: int,
    quantile: QuantileMethod,
    steps: int,
    beta: float,
    ledger: Ledger,
    g: Any,
) -> np.ndarray:
    """The variance stage: :func:`variance_cap` then Algorithm 2 (:func:`variance_estimate`).

    Privacy
    -------
    Replace-one: the cap is one log-grid exponential-mechanism median of disjoint pair distances
    (sensitivity 1) with ``cap_share rho_v``; the ``d`` medians of Algorithm 2's group values
    (one person in one group per column) get the rest, ``/ d`` each. Both charge the stage
    "variances", ``rho_v`` in all.
    """
    d = X.shape[1]
    label = STAGE_LABELS["variance"]
    rho_var, cap = rho_v, None
    if cap_share > 0:  # the medians get rho_v - rho_cap exactly; rho_cap + that = rho_v
        rho_cap = rho_v - (rho_v - rho_v * cap_share)
        note = f"a private cap on every sigma^2 (pair-distance median on a log grid, rho {rho_cap:.4g})"
        with mechanisms.stage(ledger, label, note=note):
            cap = variance_cap(X, (lo, hi), rho=rho_cap, beta=beta, rng=g)
        rho_var = rho_v - rho_cap
    note = f"Algorithm 2: {d} private medians of pair statistics, rho/d = {rho_var / d:.4g} each"
    with mechanisms.stage(ledger, label, note=note + ("" if cap is None else ", below the cap")):
        var = variance_estimate(
            X,
            (lo, hi),
            rho=rho_var,
            pairs_per_group=pairs_per_group,
            method=quantile,
            steps=steps,
            max_variance=cap,
            floor_ratio=1e-30 if cap is None else variance_floor_ratio(d),
            rng=g,
        )
    return np.sqrt(np.maximum(var, 0.0))


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


# -- clip radius (Algorithm 1 line 6, the threshold) --------------------------------------------


def clip_slack(run: PlanRun) -> float:
    """The rank slack ``k`` of the clip quantile ``1 - k/n`` (public: ``n``, budgets, options)."""
    spec, n = run.spec, run.X.shape[0]
    kind = spec.rank_slack_kind
    rho_r = run.budgets["radius"]
    if kind in {"plan", "error_only"}:
        head = math.sqrt(n) if kind == "plan" else 0.0
        if spec.log_grid_radius:
            return head + quantiles.log_grid_rank_error(rho_r, spec.beta)
        width = float(np.max(run.hi - run.lo))
        return rank_slack(
            n,
            rho_r,
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


def threshold(run: PlanRun, mu: np.ndarray, sigma_hat: np.ndarray, s: np.ndarray) -> Threshold:
    """The clip radius ``C``: a private ``(1 - k/n)``-quantile of the scaled norms on ``[0, U]``.

    Privacy
    -------
    Replace-one: one row changes one norm, so the rank quantile has sensitivity 1; stage "clip
    radius", ``rho_radius`` (log-grid exponential mechanism, or the paper's quantile routine).
    """
    spec, X = run.spec, run.X
    n = X.shape[0]
    k = clip_slack(run)
    q_clip = min(max(1.0 - k / n, 0.5), 1.0 - 0.5 / n)
    if k / n > 0.1:
        run.warnings.append(
            f"rank slack k = {k:.1f} is {k / n:.0%} of n: the clip quantile is clamped to "
            f"{q_clip:.3f}; n is small for this budget (PLAN needs n >> sqrt(d/rho))."
        )
    assert spec.radius_universe_kind is not None
    U = radius_universe(
        spec.radius_universe_kind,
        sigma_hat=sigma_hat,
        scale=s,
        lo=run.lo,
        hi=run.hi,
        n=n,
        beta=spec.beta,
    )
    norms = np.empty(n)
    for rows, y in _scaled_rows(X, mu, s):  # y_j = (x_j - mu~) * s
        norms[rows] = _row_norms(y)
    rho_r = run.budgets["radius"]
    if spec.log_grid_radius:
        how = f"exponential mechanism on a log grid in [{U * 1e-9:.3g}, {U:.4g}]"
    else:
        how = f"on [0, {U:.4g}] ({spec.quantile})"
    note = f"private {q_clip:.4f}-quantile of the scaled norms {how}"
    method = "log_grid" if spec.log_grid_radius else spec.quantile
    with mechanisms.stage(run.ledger, STAGE_LABELS["radius"], note=note):
        # The log grid stops at the (trimmed) universe U: a radius capped there bounds the noise
        # even when a few centre coordinates are off.
        C = quantiles.norm_quantile(
            norms, q_clip, U, rho=rho_r, method=method, steps=spec.steps, rng=run.g
        )
    return Threshold(max(C, U * 1e-12), k, q_clip, U, norms)


# -- release (Algorithm 1 lines 7-8) ----------------------------------------------------------


@dataclass(frozen=True)
class Release:
    """The final stage's outputs: the estimate, the same without noise, the noise ``eta`` on the
    scaled sum and its standard deviation ``tau``."""

    mean: np.ndarray
    noiseless: np.ndarray
    eta: np.ndarray
    tau: float


def release(run: PlanRun, mu: np.ndarray, s: np.ndarray, thr: Threshold) -> Release:
    """Clip, add Gaussian noise, unscale, recentre: ``mu~ + (sum_j clip_C(y_j) + eta) / (n s)``.

    Privacy
    -------
    Replace-one: every clipped scaled row has norm ``<= C``, so the sum moves by at most ``2C``;
    stage "noisy sum", ``eta ~ N(0, 2 C^2 / rho_noise I)``, ``rho_noise``-zCDP.
    """
    X, C = run.X, thr.radius
    n, d = X.shape
    factor = np.minimum(1.0, C / np.maximum(thr.norms, _TINY))
    clipped_sum = np.zeros(d)
    for rows, y in _scaled_rows(X, mu, s):  # sum_j min(1, C / ||y_j||) y_j
        clipped_sum += factor[rows] @ y
    rho_n = run.budgets["noise"]
    tau = math.sqrt(2.0 * C * C / rho_n)
    with mechanisms.stage(run.ledger, STAGE_LABELS["noise"]):
        noisy_sum, eta = _noisy_sum(clipped_sum, 2.0 * C, rho_n, tau, run.g)
    out = Release(mu + noisy_sum / (n * s), mu + clipped_sum / (n * s), eta, tau)
    # Uses only private outputs (centre, radius, estimate) and public s: no extra privacy cost.
    pull = float(np.linalg.norm((out.mean - mu) * s))
    if pull > 0.5 * C:
        run.warnings.append(
            f"the private centre lies far from the estimate (shift {pull:.3g} in scaled units against a clip "
            f"radius {C:.3g}): some centre coordinates probably landed outside the data, which inflates the "
            "radius and the noise. More budget, more n or a tighter public range fixes it."
        )
    return out
