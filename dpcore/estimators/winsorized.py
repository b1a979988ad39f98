"""The private modified winsorized mean (PMWM): pure eps-DP (default) and rho-zCDP versions.

Pseudocode (docs/estimators/winsorized.md §2.3, the authors' ``private_tm_prac``), per coordinate:

    1  tau <- min(max(c/n, eta), max(0.025, eta))                    # trim level (§2.2)
    2  eps1, eps2, eps3 <- split * eps                                # default (1/4, 1/4, 1/2)
    3  U <- PQ(x, 1 - tau, a, b, beta, eps_T = eps1/2, eps_Q = eps2/2)  # walks up from a
    4  L <- PQ(x, tau,     a, b, beta, eps_T = eps1/2, eps_Q = eps2/2)  # walks down from b
    5  if U < L: (L, U) <- (a, b)                                     # fallback, reported
    6  m <- mean(clip(x, L, U))                                       # all points, no split
    7  return m + Lap((U - L) / (n eps3))

PQ is the unbounded private quantile (AboveThreshold on a geometric grid, Durfee 2023) of
:func:`dpcore.quantiles.unbounded.unbounded_quantile`; its exact exit at the far bound is the loop bound
(at most ``ceil(log_beta(b - a + 1))`` grid points, no overflow).

Privacy
-------
* Neighbouring relation: replace-one (swap one point), ``n`` public
  (docs/estimators/winsorized.md §1).
* Each quantile is (eps_T + eps_Q)-DP (AboveThreshold with one-sided exponential noise on
  monotone counting queries, sensitivity 1; spec §2.1). Two quantiles cost ``eps1 + eps2``.
* How the walks are sampled does not change their law: each grid point's query noise is
  independent with the same scale whether it is drawn or not, and only the stopping point is
  released, so the walk draws one variate per run of grid points with equal counts (the number
  of points passed in a run is geometric; :meth:`dpcore.mechanisms.ThresholdWalk.first_above`)
  instead of one per grid point. The threshold noise is drawn as before, once per walk
  (docs/estimators/winsorized.md §2.6).
* Step 5 is post-processing of the private (L, U).
* Step 6 has swap sensitivity ``(U - L)/n`` given the (already private) interval; Laplace with
  scale ``(U - L)/(n eps3)`` is eps3-DP. Total by basic composition: ``eps1 + eps2 + eps3 = eps``.
* zCDP version (spec §2.4), ``walk="pure"`` (default, the registered ``pmwm_zcdp``): each quantile
  walk gets ``rho_w = rho_T + rho_Q`` (``rho_T = rho1/2``, ``rho_Q = rho2/2``) and runs as the *pure*
  AboveThreshold walk above with ``eps_w = sqrt(2 rho_w / d)`` per coordinate, split between
  threshold and queries as ``rho1 : rho2``. That walk is ``eps_w``-DP (Durfee 2023), hence
  ``eps_w**2 / 2 = rho_w / d``-zCDP per coordinate (Bun & Steinke 2016, Prop. 1.4), an accounting
  known to hold for any walk length. The ledger splits ``rho_w`` into threshold and query stages
  in proportion to their ε shares. The mean is released with ``N(0, ((U - L)/(n sqrt(2 rho3)))^2)``.
  Total ``rho1 + rho2 + rho3 = rho``.
* ``walk="gaussian"`` is the paper's version: Gaussian threshold/query noise ``N(0, 1/rho_T)``,
  ``N(0, 1/rho_Q)``, accounted as ``(rho_T + rho_Q)``-zCDP per quantile by the paper's Lemma D.1.
  Spec §10.6 flags that proof as nonstandard, and a numeric lower bound on the Rényi divergence of
  neighbours differing late in a long walk exceeds the lemma's claim for walks longer than about
  1e12 steps; the grid cap (at most ``ceil(log_beta(b - a + 1))`` points, under
  1e7) may be what keeps it safe, but that is not proven here. It is kept for reproducing the
  paper's tables only and is not registered.
* d dimensions (coordinate-wise PMWM, spec §7; *not from the paper*): every quantile part is
  divided by d (2d AboveThreshold runs of ``(eps1/(2d), eps2/(2d))``). The pure mean step uses
  Laplace with scale ``d (U_r - L_r)/(n eps3)`` per coordinate (composition over d). The zCDP
  mean step either splits ``rho3/d`` per coordinate (``mean_noise="per_coordinate"``) or adds one
  Gaussian calibrated to the joint l2 sensitivity ``sqrt(sum_r (U_r - L_r)^2)/n`` with all of
  ``rho3`` (``mean_noise="joint"``, the default; identical when d = 1).

References
----------
Ramsay, K. and Spicker, D. "Improved subsample-and-aggregate via the private modified winsorized
mean." arXiv 2501.14095 (v1), Algorithms 1–2, Theorem 3.1, Lemma D.1.
Durfee, D. "Unbounded differentially private quantile and maximum estimation." NeurIPS 2023.
docs/estimators/winsorized.md §2 (estimator), §7 (d dimensions), §9 (testable properties).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from dpcore import _kernels, _kernels_pmwm, mechanisms
from dpcore._validation import RngLike, check_bounds, check_data, check_positive, check_real
from dpcore.estimate import Cost, Default, Diagnostics, Estimate, check_direct_call
from dpcore.estimators._options import EstimatorOptions, Family
from dpcore.privacy import Ledger
from dpcore.quantiles import unbounded
from dpcore.theory.winsorized import premature_stop_warning, trim_level


@dataclass(kw_only=True)
class WinsorizedDiagnostics(Diagnostics):
    """PMWM's specifics on top of :class:`~dpcore.estimate.Diagnostics` (spec §2).

    Attributes
    ----------
    tau : float
        Trim level τ of the two quantile walks.
    notion : str
        ``"pure"`` or ``"zcdp"``.
    raw_interval : (array, array)
        The private interval ``(L̂, Û)`` before the fallback.
    fallback, fallback_count : bool array, int
        Per coordinate whether the prior range replaced an inverted interval, and how many did.
    noise_scale : array
        Laplace scale (pure) or Gaussian standard deviation (zCDP) of the mean's noise.
    pulled_low, pulled_high : int array
        Per coordinate, rows pulled up to L̂ / down to Û (rows of the input; counts on the data).
    steps_upper, steps_lower, hit_bound_upper, hit_bound_lower : arrays
        The quantile walks' step counts and whether they reached the prior bound.
    budget_per_coordinate : dict
        Budget of each stage per coordinate.
    walk : str
        ``"pure"`` or ``"gaussian"``: which quantile walk ran.
    walk_epsilon_per_coordinate : (float, float) or None
        The ε of the threshold and query of a pure walk run under zCDP.
    bounds : (array, array)
        The prior range ``(a, b)``.
    beta : float
        Grid ratio of the walks.
    """

    tau: float
    notion: str
    raw_interval: tuple[np.ndarray, np.ndarray]
    fallback: np.ndarray
    fallback_count: int
    noise_scale: np.ndarray
    pulled_low: np.ndarray
    pulled_high: np.ndarray
    steps_upper: np.ndarray
    steps_lower: np.ndarray
    hit_bound_upper: np.ndarray
    hit_bound_lower: np.ndarray
    budget_per_coordinate: dict[str, float]
    walk: str
    walk_epsilon_per_coordinate: tuple[float, float] | None
    bounds: tuple[np.ndarray, np.ndarray]
    beta: float


#: Default budget split (threshold noise, query noise, mean): the authors' code default (spec §2.5).
DEFAULT_SPLIT: tuple[float, float, float] = (0.25, 0.25, 0.5)

MeanNoise = Literal["joint", "per_coordinate"]
Walk = Literal["pure", "gaussian"]


def walk_epsilons(rho_threshold: float, rho_query: float, d: int) -> tuple[float, float]:
    """Per-coordinate ``(eps_T, eps_Q)`` of the pure walk that meets ``rho_threshold + rho_query``
    (totals over ``d`` coordinates) in zCDP: ``eps_T + eps_Q = sqrt(2 (rho_T + rho_Q) / d)``, split
    in the ratio ``rho_T : rho_Q``. ε-DP implies ε²/2-zCDP (Bun & Steinke 2016, Prop. 1.4)."""
    total = rho_threshold + rho_query
    eps = float(np.sqrt(2.0 * total / d))
    return eps * rho_threshold / total, eps * rho_query / total


def check_split(split: Sequence[float]) -> tuple[float, float, float]:
    """Return ``split`` as three positive fractions summing to 1 (ValueError otherwise)."""
    try:
        s = tuple(float(v) for v in split)
    except (TypeError, ValueError) as err:
        raise ValueError(
            "split must be three numbers (threshold, query, mean), e.g. (0.25, 0.25, 0.5)."
        ) from err
    if len(s) != 3 or any(not np.isfinite(v) or v <= 0 for v in s) or abs(sum(s) - 1.0) > 1e-9:
        raise ValueError(
            f"split must be three positive fractions (threshold, query, mean) summing to 1; got {split!r}."
        )
    return s


@dataclass(frozen=True)
class WalkBudget:
    """What each quantile walk gets: its keyword arguments for
    :func:`~dpcore.quantiles.unbounded.unbounded_quantile`, the note of its ledger stage, and a
    pure walk's ε per coordinate under zCDP (``None`` otherwise)."""

    kwargs: dict[str, float]
    note: str
    epsilons: tuple[float, float] | None


def walk_budgets(
    notion: Literal["pure", "zcdp"], walk: Walk, part_t: float, part_q: float, d: int
) -> WalkBudget:
    """Stages 1-2: what each quantile walk gets from the threshold and query parts (spec §2.5, §7).

    ``part_t``/``part_q`` are the totals of one walk over all d coordinates, in the native unit
    (``unbounded_quantile`` divides them by d).

    Privacy
    -------
    Pure: the walk runs at ``(part_t/d, part_q/d)`` per coordinate and is charged
    ``part_t + part_q``. zCDP, ``walk="pure"``: it runs at the ε with ``ε²/2 = (part_t + part_q)/d``
    per coordinate (Bun–Steinke, Prop. 1.4), split ``part_t : part_q``; the mechanism converts
    the walk as a whole, ``d (ε_T + ε_Q)²/2 = part_t + part_q``, split in the same proportion.
    zCDP, ``walk="gaussian"``: ``ρ_T = part_t/d``, ``ρ_Q = part_q/d`` per coordinate, charged
    ``part_t + part_q`` by the paper's Lemma D.1, an unproven accounting (research option only).

    References
    ----------
    docs/estimators/winsorized.md §2.5 (budget split) and §7 (d dimensions).
    """
    if notion == "pure":
        return WalkBudget(
            {"epsilon_threshold": part_t, "epsilon_query": part_q},
            f"AboveThreshold walk, ε_T = {part_t / d:.4g}, ε_Q = {part_q / d:.4g} per coordinate",
            None,
        )
    if walk == "pure":
        eps = walk_epsilons(part_t, part_q, d)
        # unbounded_quantile divides its totals by d
        return WalkBudget(
            {"epsilon_threshold": eps[0] * d, "epsilon_query": eps[1] * d},
            f"pure AboveThreshold walk, ε_T = {eps[0]:.4g}, ε_Q = {eps[1]:.4g} per coordinate "
            f"(ε²/2 = {(part_t + part_q) / d:.4g}ρ, Bun–Steinke)",
            eps,
        )
    return WalkBudget(
        {"rho_threshold": part_t, "rho_query": part_q},
        f"Gaussian AboveThreshold walk, ρ_T = {part_t / d:.4g}, ρ_Q = {part_q / d:.4g} per "
        "coordinate",
        None,
    )


@dataclass(frozen=True)
class PrivateInterval:
    """Stages 3-5: the private interval per coordinate after the fallback, the raw one, and the walks."""

    lower: np.ndarray
    upper: np.ndarray
    raw: tuple[np.ndarray, np.ndarray]
    fallback: np.ndarray
    upper_walk: Any
    lower_walk: Any


def private_interval(
    X: np.ndarray,
    tau: float,
    a: np.ndarray,
    b: np.ndarray,
    *,
    beta: float,
    walk: WalkBudget,
    ledger: Ledger,
    rng: Any,
) -> PrivateInterval:
    """Stages 3-5: the two private quantile walks (upper from a, lower from b) and the fallback.

    Privacy
    -------
    Each walk is one :func:`dpcore.mechanisms.above_threshold` per coordinate on counts of
    sensitivity 1 (replace-one, n public), run inside the ledger stages "upper quantile" and
    "lower quantile", which the mechanism charges as "<stage>: threshold" and "<stage>: queries"
    (budgets in :func:`walk_budgets`). Where ``Û < L̂`` the prior range ``[a, b]`` replaces the
    interval (post-processing, no cost).

    References
    ----------
    Ramsay and Spicker, Algorithm 1 steps 3-5; docs/estimators/winsorized.md §2.2-§2.4.
    """
    ext = unbounded.column_extremes(X)  # one read for both walks; X is checked
    with mechanisms.stage(ledger, "upper quantile", note=walk.note):
        up = unbounded.walk_columns(
            X, 1.0 - tau, (a, b), beta=beta, rng=rng, extremes=ext, **walk.kwargs
        )
    with mechanisms.stage(ledger, "lower quantile", note=walk.note):
        lo = unbounded.walk_columns(X, tau, (a, b), beta=beta, rng=rng, extremes=ext, **walk.kwargs)
    U_raw = np.clip(np.atleast_1d(np.asarray(up.value, dtype=float)), a, b)
    L_raw = np.clip(np.atleast_1d(np.asarray(lo.value, dtype=float)), a, b)
    fallback = U_raw < L_raw
    return PrivateInterval(
        np.where(fallback, a, L_raw), np.where(fallback, b, U_raw), (L_raw, U_raw), fallback, up, lo
    )


#: Values per block of rows in :func:`winsorise` (a few buffers that stay in cache).
_CLIP_BLOCK = 1 << 15


@dataclass(frozen=True)
class Winsorised:
    """Stage 6 without noise: the mean of ``clip(X, L, U)`` per column, how many values were
    pulled up to ``L`` and down to ``U`` per column, and which (an ``(n, d)`` mask)."""

    mean: np.ndarray
    pulled_low: np.ndarray
    pulled_high: np.ndarray
    clipped: np.ndarray


def winsorise(X: np.ndarray, L: np.ndarray, U: np.ndarray) -> Winsorised:
    """Stage 6: clip every row to ``[L, U]`` and average, in one pass over blocks of rows that
    stay in cache (no ``(n, d)`` copy of the clipped data); ``L <= U``. Large arrays: one read by
    :func:`dpcore._kernels_pmwm.winsorise`, which adds in the same order."""
    n, d = X.shape
    rows = max(1, _CLIP_BLOCK // d)
    if _kernels.use_kernels(X):
        total_k, low_k, high_k, mask = _kernels_pmwm.winsorise(
            X, np.ascontiguousarray(L, dtype=float), np.ascontiguousarray(U, dtype=float), rows
        )
        return Winsorised(total_k / n, low_k, high_k, mask)
    total, low, high = np.zeros(d), np.zeros(d, np.int64), np.zeros(d, np.int64)
    clipped = np.empty((n, d), dtype=bool)
    buf, below, above = np.empty((rows, d)), np.empty((rows, d), bool), np.empty((rows, d), bool)
    for r in range(0, n, rows):
        xb = X[r : r + rows]
        k = xb.shape[0]
        bb, lb, hb = buf[:k], below[:k], above[:k]
        low += np.less(xb, L, out=lb).sum(axis=0)
        high += np.greater(xb, U, out=hb).sum(axis=0)
        np.logical_or(lb, hb, out=clipped[r : r + k])
        np.maximum(xb, L, out=bb)
        total += np.minimum(bb, U, out=bb).sum(axis=0)
    return Winsorised(total / n, low, high, clipped)


@dataclass(frozen=True)
class NoisyMean:
    """Stages 6-7: the winsorized mean without and with noise, the noise's scale and standard deviation."""

    noiseless: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    noise_std: np.ndarray


def noisy_winsorized_mean(
    X: np.ndarray,
    L: np.ndarray,
    U: np.ndarray,
    *,
    notion: Literal["pure", "zcdp"],
    mean_noise: MeanNoise,
    budget: float,
    ledger: Ledger,
    rng: Any,
    noiseless: np.ndarray | None = None,
) -> NoisyMean:
    """Stages 6-7: winsorise every row to ``[L, U]`` and add noise calibrated to the swap sensitivity.

    Privacy
    -------
    Given the (private) interval, the swap (replace-one) sensitivity of coordinate r's mean is
    ``Δ_r = (U_r - L_r)/n``. Pure: :func:`dpcore.mechanisms.laplace` with ``columns = d`` and
    scale ``d (U_r - L_r)/(n ε₃)`` per coordinate (ε₃/d each, basic composition). zCDP:
    :func:`dpcore.mechanisms.gaussian` at ``ρ₃/d`` per coordinate (``"per_coordinate"``), or one
    Gaussian on the joint ℓ2 sensitivity ``sqrt(Σ_r Δ_r²)`` with all of ``ρ₃`` (``"joint"``).
    Stage "winsorized mean: Laplace noise" or "winsorized mean: Gaussian noise", charged
    ``budget`` once. A coordinate with ``U_r = L_r`` (possible on a coarse grid) has sensitivity 0:
    it is released without noise and the budget goes to the other coordinates. ``noiseless``:
    the clipped mean when the caller has it (:func:`winsorise`).

    References
    ----------
    Ramsay and Spicker, Algorithm 1 steps 6-7, Theorem 3.1; docs/estimators/winsorized.md §2.1, §7.
    """
    n, d = X.shape
    m = winsorise(X, L, U).mean if noiseless is None else noiseless
    live = (U - L) > 0
    k = int(np.count_nonzero(live))
    scale, mean = np.zeros(d), m.copy()
    if k == 0:  # every coordinate is a point: the clipped mean is public, nothing to noise
        return NoisyMean(m, mean, scale, scale.copy())
    width = (U - L)[live]
    if notion == "pure":
        sc = k * width / (n * budget)  # per-coordinate Laplace b; eps3/k per coordinate
        with mechanisms.stage(ledger, "winsorized mean: Laplace noise"):
            rel = mechanisms.laplace(
                m[live],
                width / n,
                budget,
                rng=rng,
                scale=sc,
                columns=k,
                note=f"Laplace, swap sensitivity (U-L)/n per coordinate, {budget / k:.4g}ε each",
            )
        scale[live] = sc
        noise_std = np.sqrt(2.0) * scale
    elif mean_noise == "joint":
        l2 = np.sqrt(np.sum(width**2))
        sc = l2 / (n * np.sqrt(2.0 * budget))
        with mechanisms.stage(ledger, "winsorized mean: Gaussian noise"):
            rel = mechanisms.gaussian(
                m[live],
                l2 / n,
                budget,
                rng=rng,
                scale=sc,
                note="Gaussian, joint l2 swap sensitivity sqrt(Σ(U_r-L_r)²)/n",
            )
        scale[live] = sc
        noise_std = scale
    else:
        sc = width / (n * np.sqrt(2.0 * budget / k))
        with mechanisms.stage(ledger, "winsorized mean: Gaussian noise"):
            rel = mechanisms.gaussian(
                m[live],
                width / n,
                budget,
                rng=rng,
                scale=sc,
                columns=k,
                note=f"Gaussian, swap sensitivity (U-L)/n per coordinate, {budget / k:.4g}ρ each",
            )
        scale[live] = sc
        noise_std = scale
    mean[live] = rel.value
    return NoisyMean(m, mean, scale, noise_std)


def _warnings(
    n: int,
    d: int,
    tau: float,
    a: np.ndarray,
    b: np.ndarray,
    beta: float,
    fallback: np.ndarray,
    notion: Literal["pure", "zcdp"],
    walk: WalkBudget,
    part_q: float,
) -> list[str]:
    """The release's warnings: where the fallback fired, and where a walk risks stopping early (spec §2.6)."""
    warn: list[str] = []
    if np.any(fallback):
        cols = np.flatnonzero(fallback)
        where = (
            "the data"
            if d == 1
            else f"{cols.size} of {d} coordinates ({', '.join(map(str, cols[:8]))}{'…' if cols.size > 8 else ''})"
        )
        warn.append(
            f"Fallback fired on {where}: the private interval came out inverted (L̂ > Û), so the "
            "prior range [a, b] was used instead and the release there is a plain clipped mean."
        )
    per_q = (
        {"epsilon_query": part_q / d}
        if notion == "pure"
        else {"epsilon_query": walk.epsilons[1]}
        if walk.epsilons is not None
        else {"rho_query": part_q / d}
    )
    risky = np.atleast_1d(
        premature_stop_warning(n, tau, a, b, beta, **per_q)
    )  # one vectorised call over d
    if np.any(risky):
        ((key, val),) = per_q.items()
        where = "" if d == 1 else f" on {int(risky.sum())} of {d} coordinates"
        warn.append(
            f"Premature-stop risk{where}: with n = {n} and {key} = {val:.3g} per quantile walk, a walk "
            "may stop before it reaches the data (spec §2.6), giving a loose interval or a fallback. "
            "Use more budget, a larger n, a tighter prior range or a coarser grid (larger β)."
        )
    return warn


def _check_choices(walk: str, mean_noise: str) -> None:
    """ValueError unless ``walk`` and ``mean_noise`` are among their choices."""
    if walk not in ("pure", "gaussian"):
        raise ValueError(
            f"walk must be 'pure' (accounted by eps-DP => eps^2/2-zCDP) or 'gaussian' (the paper's "
            f"Lemma D.1); got {walk!r}."
        )
    if mean_noise not in ("joint", "per_coordinate"):
        raise ValueError(f"mean_noise must be 'joint' or 'per_coordinate'; got {mean_noise!r}.")


def _pmwm(
    x: np.ndarray,
    *,
    notion: Literal["pure", "zcdp"],
    budget: float,
    bounds: tuple,
    c: float,
    eta: float,
    beta: float,
    split: Sequence[float],
    mean_noise: MeanNoise,
    rng: RngLike,
    walk: Walk = "pure",
) -> Estimate:
    """PMWM's body, for both notions (see the module docstring for the pseudocode and the
    privacy accounting)."""
    arr = check_data(x, min_rows=2)
    X = arr.reshape(arr.shape[0], -1)
    n, d = X.shape
    budget = check_positive(budget, "epsilon" if notion == "pure" else "rho")
    s1, s2, s3 = check_split(split)
    beta = check_real(beta, "beta (grid ratio)", low=1.0, open_low=True, hint="E.g. 1.001.")
    eta = check_real(eta, "eta (maximum contamination fraction)", low=0.0, high=0.5, open_high=True)
    _check_choices(walk, mean_noise)
    a, b = check_bounds(bounds, d)
    tau = trim_level(n, c, eta)
    g = mechanisms.generator(rng)

    # 1-2. budget split; each of the two quantile calls gets half of the threshold and the query
    # parts. ``unbounded_quantile`` divides the total of a call by d across the columns.
    part_t, part_q, part_m = s1 * budget / 2.0, s2 * budget / 2.0, s3 * budget
    ledger = Ledger(notion)
    walk_cfg = walk_budgets(notion, walk, part_t, part_q, d)
    # 3-5. private quantiles and the fallback to the prior range.
    iv = private_interval(X, tau, a, b, beta=beta, walk=walk_cfg, ledger=ledger, rng=g)
    L, U, fallback = iv.lower, iv.upper, iv.fallback
    # 6-7. winsorise to the interval, noise on the mean.
    w = winsorise(X, L, U)
    mn = noisy_winsorized_mean(
        X,
        L,
        U,
        notion=notion,
        mean_noise=mean_noise,
        budget=part_m,
        ledger=ledger,
        rng=g,
        noiseless=w.mean,
    )
    warn = _warnings(n, d, tau, a, b, beta, fallback, notion, walk_cfg, part_q)
    clipped_mask = w.clipped
    diag = WinsorizedDiagnostics(
        noiseless_mean=mn.noiseless,
        center=(L + U) / 2.0,
        clip_interval=(L, U),
        clipped=clipped_mask if arr.ndim == 2 else clipped_mask[:, 0],
        noise_std=mn.noise_std,
        warnings=warn,
        tau=tau,
        notion=notion,
        raw_interval=iv.raw,
        fallback=fallback,
        fallback_count=int(np.sum(fallback)),
        noise_scale=mn.scale,
        pulled_low=w.pulled_low,
        pulled_high=w.pulled_high,
        steps_upper=np.atleast_1d(iv.upper_walk.steps),
        steps_lower=np.atleast_1d(iv.lower_walk.steps),
        hit_bound_upper=np.atleast_1d(iv.upper_walk.hit_bound),
        hit_bound_lower=np.atleast_1d(iv.lower_walk.hit_bound),
        budget_per_coordinate={
            "threshold (each quantile)": part_t / d,
            "query (each quantile)": part_q / d,
            "mean": part_m / d,
        },
        walk="pure" if notion == "pure" else walk,
        walk_epsilon_per_coordinate=walk_cfg.epsilons,
        bounds=(a, b),
        beta=beta,
    )
    return Estimate(mean=mn.mean, ledger=ledger, diagnostics=diag)


@dataclass(frozen=True, kw_only=True)
class PmwmOptions(EstimatorOptions):
    """PMWM's options; the pure ε-DP (``winsorized_mean``) and ρ-zCDP (``winsorized_mean_zcdp``)
    variants are instances, called as ``winsorized_mean(x, epsilon=..., bounds=..., rng=...)``.

    Attributes
    ----------
    notion : {"pure", "zcdp"}
        The budget: total pure-DP ``epsilon`` (swap adjacency, n public) or zCDP ``rho``.
    c : float
        Points to trim per side without contamination (trim rule, spec §2.2).
    eta : float
        Maximum expected contamination fraction in [0, 0.5).
    beta : float
        Geometric grid ratio of the quantile search (1.001 in every experiment of the paper).
    split : (s1, s2, s3)
        Fractions of the budget for threshold noise, query noise and the mean (sum 1).
    mean_noise : {"joint", "per_coordinate"}
        zCDP, d > 1 only: one Gaussian on the joint l2 sensitivity ``sqrt(sum (U_r - L_r)^2)/n``
        with all of rho3 (the zCDP default), or rho3/d per coordinate (the paper's S&A
        aggregation); the pure variant adds Laplace noise per coordinate. Same at d = 1.
    walk : {"pure", "gaussian"}
        zCDP only: how the two quantile walks are run and accounted. ``"pure"`` (default): the pure
        AboveThreshold walk at ``eps = sqrt(2 rho_w / d)`` per coordinate, which is
        ``rho_w / d``-zCDP because ε-DP implies ε²/2-zCDP (valid for any walk length).
        ``"gaussian"``: the paper's Gaussian walk, **not DP-accounted** (its charge is the paper's
        unproven Lemma D.1; see Privacy in the module docstring). The registered ``pmwm_zcdp``
        locks ``walk="pure"``, and a direct call is held to that lock (``ValueError``); the paper's
        walk runs only through the module's internal ``_pmwm``.

    A call also takes the data ``x`` (shape (n,) or (n, d); 2-D input is handled coordinate-wise
    with every budget part divided by d), ``bounds=(a, b)``, the public prior range (scalars or
    per-coordinate arrays) where the quantile walks start (it may be very loose: the cost is
    ``log_beta(b - a)`` grid steps), and ``rng``.

    Returns
    -------
    Estimate
        ``diagnostics.clip_interval`` is the private ``(L, U)`` actually used;
        ``diagnostics.fallback`` says per coordinate whether the prior range replaced an
        inverted interval (also in ``diagnostics.warnings``); ``diagnostics.noise_scale`` is the
        Laplace scale ``d (U - L)/(n eps3)`` (pure) or the Gaussian standard deviation (zCDP).

    Privacy
    -------
    Replace-one, n public. Pure: ``epsilon``-DP. Two AboveThreshold walks of ``(eps1 + eps2)/2``
    each (stages "upper quantile" and "lower quantile", threshold and queries lines), then Laplace
    noise on the winsorized mean, swap sensitivity ``(U_r - L_r)/n`` per coordinate, ``eps3`` over
    the d coordinates (stage "winsorized mean: Laplace noise"); basic composition. zCDP with
    ``walk="pure"``: ``rho``-zCDP, ``rho1 + rho2`` for the two walks (each a pure AboveThreshold
    converted as a whole) plus ``rho3`` for the Gaussian mean (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(5, 1, 1000)
    >>> est = winsorized_mean(x, epsilon=1.0, bounds=(-50, 50), rng=1)
    >>> est.ledger.total()
    1.0

    References
    ----------
    Ramsay & Spicker (2025), Algorithm 2 (practical version), §4 and Lemma D.1; Durfee (NeurIPS
    2023); Bun & Steinke (TCC 2016), Prop. 1.4; docs/estimators/winsorized.md §2.3, §2.4, §2.6, §7.
    """

    notion: Literal["pure", "zcdp"] = "pure"
    c: float = 10.0
    eta: float = 0.0
    beta: float = 1.001
    split: Sequence[float] = DEFAULT_SPLIT
    mean_noise: MeanNoise = "per_coordinate"
    walk: Walk = "pure"
    name: str = field(default="winsorized_mean", compare=False)
    fixed: tuple[str, ...] = field(default=("notion", "mean_noise", "walk"), compare=False)

    def run(self, x: Any, *, rng: Any, bounds: Any = None, **budget: Any) -> Estimate:
        """PMWM with these options (:func:`_pmwm`); ``budget`` is ``epsilon=`` or ``rho=``."""
        if self.notion == "zcdp":
            check_direct_call(winsorized_mean_zcdp, {"walk": self.walk})
        return _pmwm(
            x,
            notion=self.notion,
            budget=budget["epsilon" if self.notion == "pure" else "rho"],
            bounds=bounds,
            c=self.c,
            eta=self.eta,
            beta=self.beta,
            split=self.split,
            mean_noise=self.mean_noise,
            walk=self.walk,
            rng=rng,
        )


#: The pure ε-DP PMWM (the app's default): Laplace noise on the mean, per coordinate.
winsorized_mean = PmwmOptions()
#: The ρ-zCDP PMWM: pure walks accounted in zCDP, a joint Gaussian mean step by default.
winsorized_mean_zcdp = PmwmOptions(
    notion="zcdp", mean_noise="joint", name="winsorized_mean_zcdp", fixed=("notion",)
)

#: What the winsorized family's variants share.
WINSORIZED = Family(
    family="winsorized",
    data_kinds=frozenset({"real", "bounded"}),
    cost=Cost(per_value_us=0.2, overhead_ms=2.0),
)

WINSORIZED.register(
    "pmwm",
    "PMWM (ε)",
    1000,
    winsorized_mean,
    color="#009E73",
    cost=Cost(per_value_us=0.8, overhead_ms=35.0),
    detail="Winsorized mean (PMWM, pure ε)",
    default=Default(rank=60, units=frozenset({"eps"})),
    description="Private quantiles by an unbounded geometric search, winsorise to them, add Laplace noise "
    "(coordinate-wise when d > 1).",
)

WINSORIZED.register(
    "pmwm_zcdp",
    "PMWM (ρ)",
    1010,
    winsorized_mean_zcdp,
    color="#007A5A",
    cost=Cost(per_value_us=0.9, overhead_ms=25.0),
    detail="Winsorized mean (PMWM, zCDP)",
    default=Default(rank=60),
    description="PMWM in ρ-zCDP: pure-ε quantile walks at ε = √(2ρ_walk) (ε-DP ⇒ ε²/2-zCDP), Gaussian noise "
    "on the mean; coordinate-wise with a joint Gaussian mean step when d > 1, so it compares "
    "with PLAN and IOME at the same ρ.",
)
