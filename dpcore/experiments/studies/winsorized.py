"""Studies of the Winsorized mean page: contamination (strong-contamination adversary) and
subsample-and-aggregate with the PMWM aggregator, each vectorised over repetitions."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np
import pandas as pd

from dpcore._validation import RngLike, as_generator
from dpcore.estimate import Estimate
from dpcore.estimators.winsorized import (
    WinsorizedDiagnostics,
    winsorized_mean,
    winsorized_mean_zcdp,
)
from dpcore.estimators.winsorized_baselines import clipped_mean_box_zcdp, clipped_mean_laplace
from dpcore.privacy import Budget

Notion = Literal["pure", "zcdp"]


Statistic = Literal["mean", "median", "variance (MLE)"]


def contaminate(x: np.ndarray, fraction: float, shift: float, *, rng: RngLike = None) -> np.ndarray:
    """Replace ``floor(fraction n)`` random points of ``x`` by outliers at ``mean + shift sd``
    (with a little jitter): the strong-contamination adversary of spec §1, made visible."""
    g = as_generator(rng)
    x = np.asarray(x, dtype=float).copy()
    k = int(math.floor(fraction * x.size))
    if k:
        rows = g.choice(x.size, size=k, replace=False)
        x[rows] = x.mean() + shift * x.std() + 0.05 * x.std() * g.standard_normal(k)
    return x


def _pmwm(notion: Notion) -> Callable[..., Estimate]:
    return winsorized_mean if notion == "pure" else winsorized_mean_zcdp


def _budget_kw(notion: Notion, budget: Budget | float, reps: int) -> dict[str, float]:
    """The keyword of ``reps`` repetitions at ``budget`` each in ``notion``: a :class:`Budget` is
    converted first (a zCDP version under a pure ε budget runs at the ρ = ε²/2 it implies, and
    does not give ε-DP), a float is already in ``notion``'s unit."""
    if isinstance(budget, Budget):
        conv = budget.implied_zcdp() if notion == "zcdp" else budget.to_native("pure")
        budget = conv.value
    value = float(budget) * reps
    return {"epsilon": value} if notion == "pure" else {"rho": value}


#: Values per batch of the contamination sweep: levels are run together as columns up to this.
_SWEEP_ELEMENTS = 1 << 22


def _contaminated(
    x: np.ndarray, f: float, reps: int, out_value: float, g: np.random.Generator
) -> np.ndarray:
    """``reps`` copies of ``x`` as columns, ``floor(f n)`` fresh random rows of each moved to
    ``out_value`` (with a little jitter)."""
    n = x.size
    X = np.repeat(x[:, None], reps, axis=1)
    k = int(math.floor(f * n))
    if k:
        pick = np.argsort(g.random((n, reps)), axis=0)[:k]
        X[pick, np.arange(reps)[None, :]] = out_value + 0.05 * x.std() * g.standard_normal(
            (k, reps)
        )
    return X


def contamination_sweep(
    x: np.ndarray,
    fractions: np.ndarray,
    *,
    shift: float,
    notion: Notion,
    budget: Budget | float,
    bounds: tuple[float, float],
    eta: float,
    c: float = 10.0,
    reps: int = 60,
    rng: RngLike = None,
) -> pd.DataFrame:
    """RMSE (against the clean sample's mean) of PMWM at ``eta``, PMWM at eta = 0 and the clipped
    mean with public bounds, as a growing fraction of points is moved ``shift`` sd to the right.

    Each fraction runs ``reps`` repetitions vectorised as columns (fresh outlier rows and noise),
    and several fractions run in one call of each estimator (their columns side by side, up to
    ``_SWEEP_ELEMENTS`` values): every estimator here treats columns alike, each with the budget
    of one repetition, so a column's law does not depend on its neighbours.
    ``budget``: a :class:`~dpcore.privacy.Budget` (converted to ``notion``) or a value already in
    ``notion``'s unit.
    """
    g = as_generator(rng)
    x = np.asarray(x, dtype=float).ravel()
    fractions = np.asarray(fractions, dtype=float).ravel()
    target = float(x.mean())
    out_value = x.mean() + shift * x.std()
    clipped_fn = clipped_mean_laplace if notion == "pure" else clipped_mean_box_zcdp
    extra = {} if notion == "pure" else {"mean_noise": "per_coordinate"}
    per = max(1, _SWEEP_ELEMENTS // (x.size * reps))  # levels per batch
    rows = []
    for start in range(0, fractions.size, per):
        levels = fractions[start : start + per]
        X = np.concatenate([_contaminated(x, f, reps, out_value, g) for f in levels], axis=1)
        kw = _budget_kw(notion, budget, reps * levels.size)
        results = {
            f"PMWM (η = {eta:g})": _pmwm(notion)(
                X, bounds=bounds, eta=eta, c=c, rng=g, **kw, **extra
            ),
            "PMWM (η = 0)": _pmwm(notion)(X, bounds=bounds, eta=0.0, c=c, rng=g, **kw, **extra),
            "clipped mean (public bounds)": clipped_fn(X, bounds=bounds, rng=g, **kw),
        }
        for i, f in enumerate(levels):
            cols = slice(i * reps, (i + 1) * reps)
            for name, est in results.items():
                dg = est.diagnostics
                fell = (
                    int(np.sum(dg.fallback[cols])) if isinstance(dg, WinsorizedDiagnostics) else 0
                )
                rows.append(
                    {
                        "contamination": float(f),
                        "estimator": name,
                        "rmse": float(np.sqrt(np.mean((est.mean[cols] - target) ** 2))),
                        "bias": float(np.mean(dg.noiseless_mean[cols] - target)),
                        "fallbacks": fell,
                        "runs": reps,
                    }
                )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------------
# subsample-and-aggregate


def _stat(blocks: np.ndarray, statistic: Statistic) -> np.ndarray:
    if statistic == "mean":
        return blocks.mean(axis=-1)
    if statistic == "median":
        return np.median(blocks, axis=-1)
    if statistic == "variance (MLE)":
        return blocks.var(axis=-1)
    raise ValueError(f"statistic must be 'mean', 'median' or 'variance (MLE)'; got {statistic!r}.")


def full_statistic(x: np.ndarray, statistic: Statistic) -> float:
    """The non-private statistic on all the data (the S&A target)."""
    return float(_stat(np.asarray(x, dtype=float).ravel(), statistic))


def sa_error_by_group_size(
    x: np.ndarray,
    statistic: Statistic,
    group_sizes: np.ndarray,
    *,
    notion: Notion,
    budget: Budget | float,
    bounds: tuple[float, float],
    reps: int = 40,
    c: float = 1.0,
    rng: RngLike = None,
) -> pd.DataFrame:
    """RMSE of S&A with the PMWM aggregator against the full-data statistic, per group size.

    For each group size the ``reps`` runs (fresh random partitions and noise) are vectorised: the
    group statistics of all runs form a (k, reps) array aggregated in one call. ``budget`` as in
    :func:`contamination_sweep`.
    """
    g = as_generator(rng)
    x = np.asarray(x, dtype=float).ravel()
    N = x.size
    target = full_statistic(x, statistic)
    kw = _budget_kw(notion, budget, reps)
    extra = {} if notion == "pure" else {"mean_noise": "per_coordinate"}
    rows = []
    for m in group_sizes:  # a handful of group sizes; repetitions are vectorised
        k = N // int(m)
        if k < 2:
            continue
        perm = np.argsort(g.random((reps, N)), axis=1)[:, : k * int(m)].reshape(reps, k, int(m))
        theta = _stat(x[perm], statistic).T  # (k, reps)
        est = _pmwm(notion)(theta, bounds=bounds, c=c, rng=g, **kw, **extra)
        err = est.mean - target
        rows.append(
            {
                "group_size": int(m),
                "groups": k,
                "rmse": float(np.sqrt(np.mean(err**2))),
                "bias": float(np.mean(est.mean) - target),
                "fallbacks": int(est.diagnostics_as(WinsorizedDiagnostics).fallback_count),
                "runs": reps,
            }
        )
    return pd.DataFrame(rows)


def suggested_group_size(curve: pd.DataFrame, largest: int, *, slack: float = 1.5) -> int:
    """The group size to start subsample-and-aggregate at, read off a
    :func:`sa_error_by_group_size` curve: the largest size up to ``largest`` where the aggregator
    never fell back and the RMSE is within ``slack`` times the best such RMSE (larger groups give
    each statistic more rows at little cost in error); 2 when every size fell back.

    Examples
    --------
    >>> curve = pd.DataFrame({"group_size": [2, 5, 10, 50], "rmse": [1.0, 1.2, 2.0, 0.5],
    ...                       "fallbacks": [0, 0, 0, 3]})
    >>> suggested_group_size(curve, 100)
    5
    """
    calm = curve[(curve.fallbacks == 0) & (curve.group_size <= largest)]
    if not len(calm):
        return 2
    near = calm[calm.rmse <= slack * float(calm.rmse.min())]
    return int(near.group_size.max())
