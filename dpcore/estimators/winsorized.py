"""The private modified winsorized mean (PMWM): pure eps-DP (default) and rho-zCDP versions.

Pseudocode (specs/winsorized.md §2.3, the authors' ``private_tm_prac``), per coordinate:

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
* Neighbouring relation: replace-one (swap one point), ``n`` public (specs/winsorized.md §1).
* Each quantile is (eps_T + eps_Q)-DP (AboveThreshold with one-sided exponential noise on
  monotone counting queries, sensitivity 1; spec §2.1). Two quantiles cost ``eps1 + eps2``.
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
  1e12 steps (issue 11 item 8); the grid cap (at most ``ceil(log_beta(b - a + 1))`` points, under
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
specs/winsorized.md §2 (estimator), §7 (d dimensions), §9 (testable properties).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from dpcore import quantiles
from dpcore._validation import RngLike, as_generator, check_bounds, check_data, check_positive
from dpcore.estimate import Diagnostics, Estimate, EstimatorSpec, register
from dpcore.privacy import Ledger
from dpcore.theory.winsorized import premature_stop_risk, trim_level

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
        raise ValueError("split must be three numbers (threshold, query, mean), e.g. (0.25, 0.25, 0.5).") from err
    if len(s) != 3 or any(not np.isfinite(v) or v <= 0 for v in s) or abs(sum(s) - 1.0) > 1e-9:
        raise ValueError(f"split must be three positive fractions (threshold, query, mean) summing to 1; got {split!r}.")
    return s  # type: ignore[return-value]


def _pmwm(x: np.ndarray, *, notion: Literal["pure", "zcdp"], budget: float, bounds: tuple,
          c: float, eta: float, beta: float, split: Sequence[float], mean_noise: MeanNoise,
          rng: RngLike, walk: Walk = "pure") -> Estimate:
    """Shared body of :func:`winsorized_mean` and :func:`winsorized_mean_zcdp` (see the module
    docstring for the pseudocode and the privacy accounting)."""
    arr = check_data(x, min_rows=2)
    X = arr.reshape(arr.shape[0], -1)
    n, d = X.shape
    budget = check_positive(budget, "epsilon" if notion == "pure" else "rho")
    s1, s2, s3 = check_split(split)
    beta = float(beta)
    if not beta > 1.0:
        raise ValueError(f"beta (grid ratio) must be > 1, e.g. 1.001; got {beta!r}.")
    if walk not in ("pure", "gaussian"):
        raise ValueError(f"walk must be 'pure' (accounted by eps-DP => eps^2/2-zCDP) or 'gaussian' (the paper's "
                         f"Lemma D.1); got {walk!r}.")
    if mean_noise not in ("joint", "per_coordinate"):
        raise ValueError(f"mean_noise must be 'joint' or 'per_coordinate'; got {mean_noise!r}.")
    a, b = check_bounds(bounds, d)
    tau = trim_level(n, c, eta)
    g = as_generator(rng)

    # 1-2. budget split; each of the two quantile calls gets half of the threshold and the query
    # parts. ``unbounded_quantile`` divides the total of a call by d across the columns.
    part_t, part_q, part_m = s1 * budget / 2.0, s2 * budget / 2.0, s3 * budget
    ledger = Ledger(notion)
    walk_eps: tuple[float, float] | None = None
    if notion == "pure":
        qkw = {"epsilon_threshold": part_t, "epsilon_query": part_q}
        note_t = f"AboveThreshold target noise, {part_t / d:.4g}ε per coordinate"
        note_q = f"AboveThreshold query noise, {part_q / d:.4g}ε per coordinate"
    elif walk == "pure":
        walk_eps = walk_epsilons(part_t, part_q, d)
        # unbounded_quantile divides its totals by d
        qkw = {"epsilon_threshold": walk_eps[0] * d, "epsilon_query": walk_eps[1] * d}
        conv = (f"pure walk, ε = {sum(walk_eps):.4g} per coordinate ⇒ ε²/2 = {(part_t + part_q) / d:.4g}ρ "
                "(Bun–Steinke), split in proportion")
        note_t = f"AboveThreshold target noise ε_T = {walk_eps[0]:.4g}; {conv}"
        note_q = f"AboveThreshold query noise ε_Q = {walk_eps[1]:.4g}; {conv}"
    else:
        qkw = {"rho_threshold": part_t, "rho_query": part_q}
        note_t = f"Gaussian AboveThreshold target noise, {part_t / d:.4g}ρ per coordinate (paper's Lemma D.1)"
        note_q = f"Gaussian AboveThreshold query noise, {part_q / d:.4g}ρ per coordinate (paper's Lemma D.1)"

    # 3-4. private quantiles (upper walks up from a, lower walks down from b).
    up = quantiles.unbounded_quantile(X, 1.0 - tau, (a, b), beta=beta, rng=g, **qkw)
    ledger.charge("upper quantile: threshold", part_t, note_t)
    ledger.charge("upper quantile: queries", part_q, note_q)
    lo = quantiles.unbounded_quantile(X, tau, (a, b), beta=beta, rng=g, **qkw)
    ledger.charge("lower quantile: threshold", part_t, note_t)
    ledger.charge("lower quantile: queries", part_q, note_q)
    U_raw = np.clip(np.atleast_1d(np.asarray(up.value, dtype=float)), a, b)
    L_raw = np.clip(np.atleast_1d(np.asarray(lo.value, dtype=float)), a, b)

    # 5. fallback to the prior range where the private interval came out inverted.
    fallback = U_raw < L_raw
    L = np.where(fallback, a, L_raw)
    U = np.where(fallback, b, U_raw)

    # 6. winsorise every point to its coordinate's private interval.
    clipped_x = np.clip(X, L, U)
    m = clipped_x.mean(axis=0)
    width = U - L

    # 7. noise on the mean.
    if notion == "pure":
        scale = d * width / (n * part_m)  # per-coordinate Laplace b; eps3/d per coordinate
        noise = scale * g.laplace(0.0, 1.0, size=d)
        noise_std = np.sqrt(2.0) * scale
        ledger.charge("winsorized mean: Laplace noise", part_m,
                      f"Laplace, swap sensitivity (U-L)/n per coordinate, {part_m / d:.4g}ε each")
    elif mean_noise == "joint":
        scale = np.full(d, np.sqrt(np.sum(width**2)) / (n * np.sqrt(2.0 * part_m)))
        noise = scale * g.standard_normal(d)
        noise_std = scale
        ledger.charge("winsorized mean: Gaussian noise", part_m,
                      "Gaussian, joint l2 swap sensitivity sqrt(Σ(U_r-L_r)²)/n")
    else:
        scale = width / (n * np.sqrt(2.0 * part_m / d))
        noise = scale * g.standard_normal(d)
        noise_std = scale
        ledger.charge("winsorized mean: Gaussian noise", part_m,
                      f"Gaussian, swap sensitivity (U-L)/n per coordinate, {part_m / d:.4g}ρ each")
    mean = m + noise

    warn: list[str] = []
    if np.any(fallback):
        cols = np.flatnonzero(fallback)
        where = "the data" if d == 1 else f"{cols.size} of {d} coordinates ({', '.join(map(str, cols[:8]))}{'…' if cols.size > 8 else ''})"
        warn.append(f"Fallback fired on {where}: the private interval came out inverted (L̂ > Û), so the "
                    "prior range [a, b] was used instead and the release there is a plain clipped mean.")
    per_q = ({"epsilon_query": part_q / d} if notion == "pure" else
             {"epsilon_query": walk_eps[1]} if walk_eps is not None else {"rho_query": part_q / d})
    risky = np.atleast_1d(premature_stop_risk(n, tau, a, b, beta, **per_q))  # one vectorised call over d
    if np.any(risky):
        (key, val), = per_q.items()
        where = "" if d == 1 else f" on {int(risky.sum())} of {d} coordinates"
        warn.append(f"Premature-stop risk{where}: with n = {n} and {key} = {val:.3g} per quantile walk, a walk "
                    "may stop before it reaches the data (spec §2.6), giving a loose interval or a fallback. "
                    "Use more budget, a larger n, a tighter prior range or a coarser grid (larger β).")

    clipped_mask = (X < L) | (X > U)
    diag = Diagnostics(
        noiseless_mean=m,
        center=(L + U) / 2.0,
        clip_interval=(L, U),
        clipped=clipped_mask if arr.ndim == 2 else clipped_mask[:, 0],
        noise_std=noise_std,
        warnings=warn,
        extra={
            "tau": tau,
            "notion": notion,
            "raw_interval": (L_raw, U_raw),
            "fallback": fallback,
            "fallback_count": int(np.sum(fallback)),
            "noise_scale": scale,
            "pulled_low": (X < L).sum(axis=0),
            "pulled_high": (X > U).sum(axis=0),
            "steps_upper": np.atleast_1d(up.steps),
            "steps_lower": np.atleast_1d(lo.steps),
            "hit_bound_upper": np.atleast_1d(up.hit_bound),
            "hit_bound_lower": np.atleast_1d(lo.hit_bound),
            "budget_per_coordinate": {"threshold (each quantile)": part_t / d,
                                      "query (each quantile)": part_q / d,
                                      "mean": part_m / d},
            "walk": "pure" if notion == "pure" else walk,
            "walk_epsilon_per_coordinate": walk_eps,
            "bounds": (a, b),
            "beta": beta,
        },
    )
    return Estimate(mean=mean, ledger=ledger, diagnostics=diag)


def winsorized_mean(x: np.ndarray, *, epsilon: float, bounds: tuple, c: float = 10.0, eta: float = 0.0,
                    beta: float = 1.001, split: Sequence[float] = DEFAULT_SPLIT,
                    rng: RngLike = None) -> Estimate:
    """Private modified winsorized mean, practical version, pure epsilon-DP (the app's default).

    Parameters
    ----------
    x : array, shape (n,) or (n, d)
        Data; 2-D input is handled coordinate-wise with every budget part divided by d.
    epsilon : float
        Total pure-DP budget (swap adjacency, n public).
    bounds : (a, b)
        Public prior range (scalars or per-coordinate arrays); the quantile walks start there.
        It may be very loose: the cost is ``log_beta(b - a)`` grid steps, not ``b - a``.
    c : float
        Points to trim per side without contamination (trim rule, spec §2.2).
    eta : float
        Maximum expected contamination fraction in [0, 0.5).
    beta : float
        Geometric grid ratio of the quantile search (1.001 in every experiment of the paper).
    split : (s1, s2, s3)
        Fractions of epsilon for threshold noise, query noise and the mean (sum 1).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    Estimate
        ``diagnostics.clip_interval`` is the private ``(L, U)`` actually used;
        ``diagnostics.extra["fallback"]`` says per coordinate whether the prior range replaced an
        inverted interval (also in ``diagnostics.warnings``); ``extra["noise_scale"]`` is the
        Laplace scale ``d (U - L)/(n eps3)``.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(5, 1, 1000)
    >>> est = winsorized_mean(x, epsilon=1.0, bounds=(-50, 50), rng=1)
    >>> est.ledger.total()
    1.0

    References
    ----------
    Ramsay & Spicker (2025), Algorithm 2 (practical version); specs/winsorized.md §2.3, §2.6, §7.
    """
    return _pmwm(x, notion="pure", budget=epsilon, bounds=bounds, c=c, eta=eta, beta=beta, split=split,
                 mean_noise="per_coordinate", rng=rng)


def winsorized_mean_zcdp(x: np.ndarray, *, rho: float, bounds: tuple, c: float = 10.0, eta: float = 0.0,
                         beta: float = 1.001, split: Sequence[float] = DEFAULT_SPLIT,
                         mean_noise: MeanNoise = "joint", walk: Walk = "pure", rng: RngLike = None) -> Estimate:
    """Private modified winsorized mean, rho-zCDP version.

    Parameters are those of :func:`winsorized_mean`, with ``rho`` the total zCDP budget, and

    mean_noise : {"joint", "per_coordinate"}
        d > 1 only: one Gaussian on the joint l2 sensitivity ``sqrt(sum (U_r - L_r)^2)/n`` with all
        of rho3 (default), or rho3/d per coordinate (the paper's S&A aggregation). Same at d = 1.
    walk : {"pure", "gaussian"}
        How the two quantile walks are run and accounted. ``"pure"`` (default): the pure
        AboveThreshold walk at ``eps = sqrt(2 rho_w / d)`` per coordinate, which is ``rho_w / d``-zCDP
        because ε-DP implies ε²/2-zCDP (valid for any walk length). ``"gaussian"``: the paper's
        Gaussian walk accounted by its Lemma D.1, which is not proven here (see Privacy in the
        module docstring); for reproducing the paper only.

    Returns
    -------
    Estimate
        As for :func:`winsorized_mean`; ``extra["noise_scale"]`` is the Gaussian standard deviation.

    References
    ----------
    Ramsay & Spicker (2025), §4 and Lemma D.1; Durfee (NeurIPS 2023); Bun & Steinke (TCC 2016),
    Prop. 1.4; specs/winsorized.md §2.4, §7.
    """
    return _pmwm(x, notion="zcdp", budget=rho, bounds=bounds, c=c, eta=eta, beta=beta, split=split,
                 mean_noise=mean_noise, walk=walk, rng=rng)


register(EstimatorSpec(
    name="pmwm",
    label="Winsorized mean (PMWM, pure ε)",
    color="#2ca02c",
    notion="pure",
    data_kinds=frozenset({"real", "bounded"}),
    neighbouring="replace-one",
    func=winsorized_mean,
    family="winsorized",
    description="Private quantiles by an unbounded geometric search, winsorise to them, add Laplace noise "
                "(coordinate-wise when d > 1).",
))

register(EstimatorSpec(
    name="pmwm_zcdp",
    label="Winsorized mean (PMWM, zCDP)",
    color="#98df8a",
    notion="zcdp",
    data_kinds=frozenset({"real", "bounded"}),
    neighbouring="replace-one",
    func=winsorized_mean_zcdp,
    family="winsorized",
    description="PMWM in ρ-zCDP: pure-ε quantile walks at ε = √(2ρ_walk) (ε-DP ⇒ ε²/2-zCDP), Gaussian noise "
                "on the mean; coordinate-wise with a joint Gaussian mean step when d > 1, so it compares "
                "with PLAN and IOME at the same ρ.",
))
