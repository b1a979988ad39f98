"""Studies: the simulations behind figures, each seeded by the ``rng`` convention and returning a tidy frame.

Moved here: ``simulate_tv`` (moved from ``theory_binary.py``); ``Notion``, ``Statistic``, ``_pmwm``, ``_budget_kw``, ``contamination_sweep``, ``_stat``, ``full_statistic``, ``sa_error_by_group_size`` (moved from ``figures_winsorized.py``); ``LABELS``, ``KNOWN_N``, ``sample_at``, ``simulated_points`` (moved from ``figures_simplex.py``); ``run_estimator``, ``repeated_frame`` (moved from ``figures_your_data.py``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from dpcore._validation import RngLike, as_generator, check_positive
from dpcore.data.dataset import Dataset
from dpcore.estimate import Estimate, EstimatorSpec
from dpcore.estimators.private_bounds import run_with_private_bounds
from dpcore.estimators.simplex import (
    simplex_mean_draws,
)
from dpcore.estimators.simplex_baselines import baseline_draws
from dpcore.estimators.winsorized import winsorized_mean, winsorized_mean_zcdp
from dpcore.estimators.winsorized_baselines import clipped_mean_box_zcdp, clipped_mean_laplace
from dpcore.experiments.summaries import guarantee_label
from dpcore.privacy import Budget
from dpcore.theory.binary_product import product_tv_many, profile, sample_binary_product

# --------------------------------------------------------------------------------------------
# simulation for the page: TV against n or d


def simulate_tv(profile_name: str, grid: list[tuple[int, int]], epsilon: float, *, seeds: int = 3,
                estimators: tuple[str, ...] = ("binary_pde", "binary_naive_laplace"), rng: RngLike = 0,
                **params: Any) -> list[dict[str, Any]]:
    """Mean TV of each estimator over ``seeds`` repetitions at each ``(n, d)`` of ``grid``.

    Each repetition draws a fresh dataset from :func:`profile` (sparse storage) with a child of
    ``rng`` (``SeedSequence.spawn``), runs every estimator at pure ``epsilon`` through the registry
    (a zCDP estimator raises ``ValueError``: it cannot meet a pure ε budget) and measures :func:`product_tv`. ``params`` go to
    ``binary_pde`` only. Returns tidy records ``{n, d, estimator, seed, tv}`` plus the non-private
    empirical mean as ``"empirical"``.

    References
    ----------
    specs/binary_product.md §5 (prototype table) and §6.5 (TV against n and d).
    """
    from dpcore import registry
    from dpcore.privacy import Budget

    epsilon = check_positive(epsilon, "epsilon")
    budget = Budget.pure(epsilon)
    root = np.random.SeedSequence(rng if isinstance(rng, int) else None)
    children = root.spawn(len(grid) * seeds)
    out: list[dict[str, Any]] = []
    for k, (n, d) in enumerate(grid):  # a short grid of (n, d) points x a few seeds
        for s in range(seeds):
            g = np.random.default_rng(children[k * seeds + s])
            p = profile(profile_name, int(d), rng=g)
            X = sample_binary_product(p, int(n), rng=g)
            means = {"empirical": np.asarray(X.mean(axis=0)).ravel()}
            for name in estimators:
                kw = {**params, "shuffle": False} if name == "binary_pde" else {}  # iid rows: no shuffle needed
                means[name] = registry.run(name, X, budget, rng=g, **kw).mean
            tvs = product_tv_many(p, list(means.values()), rng=g)
            out += [{"n": n, "d": d, "estimator": name, "seed": s, "tv": float(t)}
                    for name, t in zip(means, tvs, strict=True)]
    return out



Notion = Literal["pure", "zcdp"]


Statistic = Literal["mean", "median", "variance (MLE)"]


def _pmwm(notion: Notion) -> object:
    return winsorized_mean if notion == "pure" else winsorized_mean_zcdp


def _budget_kw(notion: Notion, budget: float) -> dict[str, float]:
    return {"epsilon": budget} if notion == "pure" else {"rho": budget}


def contamination_sweep(x: np.ndarray, fractions: np.ndarray, *, shift: float, notion: Notion, budget: float,
                        bounds: tuple[float, float], eta: float, c: float = 10.0, reps: int = 60,
                        rng: RngLike = None) -> pd.DataFrame:
    """RMSE (against the clean sample's mean) of PMWM at ``eta``, PMWM at eta = 0 and the clipped
    mean with public bounds, as a growing fraction of points is moved ``shift`` sd to the right.

    Each fraction runs ``reps`` repetitions vectorised as columns (fresh outlier rows and noise).
    """
    g = as_generator(rng)
    x = np.asarray(x, dtype=float).ravel()
    n = x.size
    target = float(x.mean())
    out_value = x.mean() + shift * x.std()
    clipped_fn = clipped_mean_laplace if notion == "pure" else clipped_mean_box_zcdp
    kw = _budget_kw(notion, budget * reps)
    extra = {} if notion == "pure" else {"mean_noise": "per_coordinate"}
    rows = []
    for f in fractions:  # a handful of contamination levels; repetitions are vectorised
        X = np.repeat(x[:, None], reps, axis=1)
        k = int(math.floor(f * n))
        if k:
            pick = np.argsort(g.random((n, reps)), axis=0)[:k]
            X[pick, np.arange(reps)[None, :]] = out_value + 0.05 * x.std() * g.standard_normal((k, reps))
        results = {
            f"PMWM (η = {eta:g})": _pmwm(notion)(X, bounds=bounds, eta=eta, c=c, rng=g, **kw, **extra),
            "PMWM (η = 0)": _pmwm(notion)(X, bounds=bounds, eta=0.0, c=c, rng=g, **kw, **extra),
            "clipped mean (public bounds)": clipped_fn(X, bounds=bounds, rng=g, **kw),
        }
        for name, est in results.items():
            err = est.mean - target
            rows.append({"contamination": float(f), "estimator": name, "rmse": float(np.sqrt(np.mean(err**2))),
                         "bias": float(np.mean(est.diagnostics.noiseless_mean - target)),
                         "fallbacks": int(est.diagnostics.extra.get("fallback_count", 0)), "runs": reps})
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


def sa_error_by_group_size(x: np.ndarray, statistic: Statistic, group_sizes: np.ndarray, *, notion: Notion,
                           budget: float, bounds: tuple[float, float], reps: int = 40, c: float = 1.0,
                           rng: RngLike = None) -> pd.DataFrame:
    """RMSE of S&A with the PMWM aggregator against the full-data statistic, per group size.

    For each group size the ``reps`` runs (fresh random partitions and noise) are vectorised: the
    group statistics of all runs form a (k, reps) array aggregated in one call.
    """
    g = as_generator(rng)
    x = np.asarray(x, dtype=float).ravel()
    N = x.size
    target = full_statistic(x, statistic)
    kw = _budget_kw(notion, budget * reps)
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
        rows.append({"group_size": int(m), "groups": k, "rmse": float(np.sqrt(np.mean(err**2))),
                     "bias": float(np.mean(est.mean) - target),
                     "fallbacks": int(est.diagnostics.extra["fallback_count"]), "runs": reps})
    return pd.DataFrame(rows)



#: Plain names for the chart legends (the spec's internal labels S2-S4, B1-B3 are for developers only).
LABELS = {
    "simplex": "Simplex, free count", "simplex_known_n": "Simplex, known n (projection)",
    "simplex_extra_count": "Simplex + extra paid count",
    "plugin": "Noisy sum / noisy count (split f)", "plugin_oracle": "Noisy sum / noisy count, best split (oracle)",
    "centred": "Centred sum / noisy count (split f)",
    "sum_known_n": "Noisy sum / n", "centred_sum_known_n": "Centred noisy sum / n",
}


KNOWN_N = ["simplex_known_n", "sum_known_n", "centred_sum_known_n"]


def sample_at(p: float, n: int, radius: float = 1.0, *, rng: RngLike = None) -> np.ndarray:
    """``n`` values in ``[0, R]`` whose sample mean is exactly ``p R`` (Beta-shaped, then recentred
    and clipped; the constant ``p R`` at the ends). Only the mean matters for the noise error."""
    if p <= 0 or p >= 1:
        return np.full(n, float(np.clip(p, 0, 1)) * radius)
    g = as_generator(rng)
    x = g.beta(4 * p, 4 * (1 - p), n)
    m = float(x.mean())
    # shrink towards 0 or towards 1 so the mean is exactly p and every value stays in [0, 1]
    x = x * (p / m) if m > p else 1 - (1 - x) * ((1 - p) / (1 - m))
    return np.clip(x, 0, 1) * radius


def simulated_points(*, n: int, radius: float = 1.0, epsilon: float | None = None, rho: float | None = None,
                     split: float = 0.5, count_fraction: float = 0.0, neighbouring: str = "add-remove",
                     ps: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0), reps: int = 2000,
                     rng: RngLike = None) -> pd.DataFrame:
    """Empirical MSE (against the sample mean) of each estimator at a few positions ``p``, by running
    the dpcore estimators ``reps`` times on a sample whose mean is ``p R``."""
    g = as_generator(rng)
    b = {"epsilon": epsilon, "rho": rho}
    bounds = (0.0, radius)
    rows = []
    for p in ps:  # a handful of positions; each call is vectorised over repetitions
        x = sample_at(p, n, radius, rng=g)
        mu = x.mean()
        runs = {
            "simplex_known_n": simplex_mean_draws(x, bounds=bounds, known_n=True, neighbouring=neighbouring,
                                                  reps=reps, rng=g, **b),
            "sum_known_n": baseline_draws("b1", x, bounds=bounds, neighbouring=neighbouring, reps=reps, rng=g, **b),
        }
        if neighbouring == "add-remove":
            runs["centred_sum_known_n"] = baseline_draws("b1", x, bounds=bounds, centred=True, reps=reps, rng=g, **b)
            runs["simplex"] = simplex_mean_draws(x, bounds=bounds, reps=reps, rng=g, **b)
            runs["plugin"] = baseline_draws("plugin", x, bounds=bounds, split=split, reps=reps, rng=g, **b)
            runs["centred"] = baseline_draws("centred", x, bounds=bounds, split=split, reps=reps, rng=g, **b)
            if count_fraction > 0:
                runs["simplex_extra_count"] = simplex_mean_draws(x, bounds=bounds, count_fraction=count_fraction,
                                                                 reps=reps, rng=g, **b)
        for name, dr in runs.items():
            err2 = (dr[:, 0] - mu) ** 2
            rows.append({"estimator": name, "label": LABELS[name], "p": p, "mse": float(err2.mean()),
                         "se": float(err2.std(ddof=1) / math.sqrt(reps)), "known_n": name in KNOWN_N})
    return pd.DataFrame(rows)



def run_estimator(spec: EstimatorSpec, data: Dataset, budget: Budget, *, private_share: float | None = None,
                  coarse_bounds: tuple | None = None, quantiles: tuple[float, float] = (0.01, 0.99),
                  rng: RngLike = None) -> Estimate:
    """Run ``spec`` with the data's bounds as public (``private_share=None``) or after a private
    bounds step spending ``private_share`` of the budget (:func:`dpcore.estimators.private_bounds.run_with_private_bounds`)."""
    if private_share is None:
        return spec.run(data, budget, rng=rng)
    return run_with_private_bounds(spec, data, budget, share=private_share, coarse_bounds=coarse_bounds,
                                   quantiles=quantiles, rng=rng)


def repeated_frame(specs: Sequence[EstimatorSpec], data: Dataset, budget: Budget, reps: int, seed: int, *,
                   private_share: float | None = None, coarse_bounds: tuple | None = None,
                   quantiles: tuple[float, float] = (0.01, 0.99)) -> pd.DataFrame:
    """``reps`` runs of each estimator on the same data with independent noise (child seeds spawned
    from ``seed``); one row per run with its l2 error against the non-private mean."""
    children = np.random.SeedSequence(seed).spawn(reps)
    rows = []
    for spec in specs:
        for r, child in enumerate(children):
            est = run_estimator(spec, data, budget, private_share=private_share, coarse_bounds=coarse_bounds,
                                quantiles=quantiles, rng=np.random.default_rng(child))
            err = np.asarray(est.mean, dtype=float) - data.true_mean
            rows.append({"estimator": spec.label, "name": spec.name, "color": spec.color, "run": r,
                         "guarantee": guarantee_label(spec.notion, spec.neighbouring),
                         "l2_error": float(np.linalg.norm(err))})
    return pd.DataFrame(rows)
