"""Studies of the Free lunch (simplex) page: samples with a given mean, simulated and theoretical
MSE per estimator, the free count against a paid one, and repeated simplex releases.

Legend labels live here (:data:`LABELS`, :func:`simplex_label`) so that the figures and the page
name the estimators alike.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from dpcore import mechanisms
from dpcore._validation import RngLike, as_generator
from dpcore.estimators.simplex import simplex_mean_draws, simplex_release
from dpcore.estimators.simplex_baselines import baseline_draws
from dpcore.theory.simplex import mse

#: Plain names for the chart legends (the spec's internal labels S2-S4, B1-B3 are for developers only).
LABELS = {
    "simplex": "Simplex, free count",
    "simplex_known_n": "Simplex, known n (projection)",
    "simplex_extra_count": "Simplex + extra paid count",
    "plugin": "Noisy sum / noisy count (split f)",
    "plugin_oracle": "Noisy sum / noisy count, best split (oracle)",
    "centred": "Centred sum / noisy count (split f)",
    "sum_known_n": "Noisy sum / n",
    "centred_sum_known_n": "Centred noisy sum / n",
}


KNOWN_N = ["simplex_known_n", "sum_known_n", "centred_sum_known_n"]
UNKNOWN_N = ["simplex", "plugin", "plugin_oracle", "centred", "simplex_extra_count"]
#: Added to a known-n label under add-remove: n is private there, so the curve is the paper's
#: "n as public side information" comparison, not a DP mechanism.
SIDE_INFORMATION = " (n as public side information: not DP under add-remove)"


def simplex_label(name: str, neighbouring: str) -> str:
    """The legend label of a simplex-page estimator under ``neighbouring`` (:data:`LABELS`, plus
    :data:`SIDE_INFORMATION` for a known-n estimator under add-remove)."""
    side = name in KNOWN_N and neighbouring == "add-remove"
    return LABELS[name] + (SIDE_INFORMATION if side else "")


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


def triangle_sample(p: float, m: int, radius: float = 1.0, *, rng: RngLike = None) -> np.ndarray:
    """``m`` rows of two non-negative columns for the triangle picture
    (:func:`dpcore.figures.simplex.triangle_d2`): Dirichlet(3p + 0.5, 1.5, 1.5) draws, first two
    coordinates, times ``1.1 R``, so that a few rows have ``z₁ + z₂ > R`` and must be rescaled
    onto the simplex before the padding coordinate is added.

    Examples
    --------
    >>> z = triangle_sample(0.65, 150, rng=0)
    >>> z.shape, bool((z >= 0).all()), bool((z.sum(axis=1) > 1).any())
    ((150, 2), True, True)
    """
    g = as_generator(rng)
    return g.dirichlet([3 * p + 0.5, 1.5, 1.5], int(m))[:, :2] * 1.1 * radius


def _draws_at(
    x: np.ndarray,
    radius: float,
    budget: dict[str, Any],
    *,
    split: float,
    count_fraction: float,
    neighbouring: str,
    reps: int,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """``reps`` simulated releases of each page estimator on ``x`` (one sample of
    :func:`simulated_points`), drawn from ``rng`` in the order the dict lists them."""
    g, b = rng, budget
    bounds = (0.0, radius)
    side: dict[str, Any] = {"side_information": neighbouring == "add-remove"}
    runs = {
        "simplex_known_n": simplex_mean_draws(
            x,
            bounds=bounds,
            known_n=True,
            neighbouring=neighbouring,
            reps=reps,
            rng=g,
            **side,
            **b,
        ),
        "sum_known_n": baseline_draws(
            "b1", x, bounds=bounds, neighbouring=neighbouring, reps=reps, rng=g, **side, **b
        ),
    }
    if neighbouring == "add-remove":
        runs["centred_sum_known_n"] = baseline_draws(
            "b1", x, bounds=bounds, centred=True, reps=reps, rng=g, **side, **b
        )
        runs["simplex"] = simplex_mean_draws(x, bounds=bounds, reps=reps, rng=g, **b)
        runs["plugin"] = baseline_draws(
            "plugin", x, bounds=bounds, split=split, reps=reps, rng=g, **b
        )
        runs["centred"] = baseline_draws(
            "centred", x, bounds=bounds, split=split, reps=reps, rng=g, **b
        )
        if count_fraction > 0:
            runs["simplex_extra_count"] = simplex_mean_draws(
                x, bounds=bounds, count_fraction=count_fraction, reps=reps, rng=g, **b
            )
    return runs


def simulated_points(
    *,
    n: int,
    radius: float = 1.0,
    epsilon: float | None = None,
    rho: float | None = None,
    split: float = 0.5,
    count_fraction: float = 0.0,
    neighbouring: str = "add-remove",
    ps: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
    reps: int = 2000,
    rng: RngLike = None,
) -> pd.DataFrame:
    """Empirical MSE (against the sample mean) of each estimator at a few positions ``p``, by running
    the dpcore estimators ``reps`` times on a sample whose mean is ``p R``.

    Under add-remove the known-n rows are the paper's "n as public side information" comparison
    (``side_information=True``; labelled :data:`SIDE_INFORMATION`): not DP there, since n is
    private. The draws simulate releases and charge no ledger."""
    g = as_generator(rng)
    budget: dict[str, Any] = {"epsilon": epsilon, "rho": rho}
    rows = []
    for p in ps:  # a handful of positions; each call is vectorised over repetitions
        x = sample_at(p, n, radius, rng=g)
        mu = x.mean()
        runs = _draws_at(
            x,
            radius,
            budget,
            split=split,
            count_fraction=count_fraction,
            neighbouring=neighbouring,
            reps=reps,
            rng=g,
        )
        for name, dr in runs.items():
            err2 = (dr[:, 0] - mu) ** 2
            rows.append(
                {
                    "estimator": name,
                    "label": simplex_label(name, neighbouring),
                    "p": p,
                    "mse": float(err2.mean()),
                    "se": float(err2.std(ddof=1) / math.sqrt(reps)),
                    "known_n": name in KNOWN_N,
                }
            )
    return pd.DataFrame(rows)


def variance_curves(
    *,
    n: int,
    radius: float = 1.0,
    epsilon: float | None = None,
    rho: float | None = None,
    split: float = 0.5,
    count_fraction: float = 0.0,
    neighbouring: str = "add-remove",
    points: int = 101,
) -> pd.DataFrame:
    """Theory lines ``MSE(p)`` for every estimator on the page (tidy frame: estimator, label, p,
    mse, known_n). Under add-remove the known-n lines are the variances of the paper's "n as
    public side information" comparison, labelled not DP (:func:`simplex_label`)."""
    p = np.linspace(0, 1, points)
    rows = []
    kw: dict[str, Any] = {"n": n, "radius": radius, "epsilon": epsilon, "rho": rho}
    names = KNOWN_N if neighbouring == "replace-one" else KNOWN_N + UNKNOWN_N
    for name in names:
        if name == "simplex_extra_count" and count_fraction <= 0:
            continue
        if name == "centred_sum_known_n" and neighbouring == "replace-one":
            continue  # centring does nothing under replace-one (equals B1)
        extra: dict[str, Any] = {"split": split} if name in ("plugin", "centred") else {}
        if name == "simplex_extra_count":
            extra = {"count_fraction": count_fraction}
        if name in KNOWN_N:
            extra["neighbouring"] = neighbouring
        vals = mse(name, p, **kw, **extra)
        rows.append(
            pd.DataFrame(
                {
                    "estimator": name,
                    "label": simplex_label(name, neighbouring),
                    "p": p,
                    "mse": vals,
                    "known_n": name in KNOWN_N,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def count_draws(
    *,
    n: int,
    radius: float = 1.0,
    epsilon: float | None = None,
    rho: float | None = None,
    split: float = 0.5,
    reps: int = 4000,
    rng: RngLike = None,
) -> pd.DataFrame:
    """``reps`` free counts ``N̂ = (m₁ + m₂)/R`` of the simplex release against as many separately paid
    counts of the plug-in (``1 - split`` of the budget), on data whose mean sits mid-range.

    Tidy frame: ``count``, ``source``. One generator from ``rng`` draws the data, then the
    releases, then the paid counts, all through :mod:`dpcore.mechanisms` outside any ledger stage
    (simulated releases: nothing is charged).

    References
    ----------
    docs/estimators/simplex.md §2.3 (S2, the free count) and §6.4.
    """
    g = as_generator(rng)
    x = sample_at(0.5, n, radius, rng=g)
    rel = simplex_release(x, bounds=(0.0, radius), epsilon=epsilon, rho=rho, reps=reps, rng=g)
    free = rel.m.sum(axis=1) / radius
    budget = rel.budget * (1 - split)
    paid = (
        mechanisms.laplace(n, 1.0, budget, rng=g, scale=1 / budget, shape=(reps,))
        if rel.mechanism == "laplace"
        else mechanisms.gaussian(
            n, 1.0, budget, rng=g, scale=1 / math.sqrt(2 * budget), shape=(reps,)
        )
    ).value
    return pd.DataFrame(
        {
            "count": np.concatenate([free, paid]),
            "source": ["free count from the simplex release"] * reps
            + [f"noisy count of the plug-in ({1 - split:.0%} of the budget)"] * reps,
        }
    )


def simplex_releases(
    x: np.ndarray,
    radius: float,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    reps: int = 300,
    rng: RngLike = None,
) -> pd.DataFrame:
    """``reps`` simplex releases ``m = s + Z`` of 1-D data ``x`` in ``[0, radius]`` (spec §6.2), for
    :func:`dpcore.figures.simplex.release_picture`.

    Returns
    -------
    DataFrame
        Columns ``m1``, ``m2`` (the noisy augmented sums), ``known_n_m1``, ``known_n_m2`` (the
        perpendicular projection onto ``m1 + m2 = N R``, S3) and ``free_count`` (``(m1 + m2) / R``,
        S2); ``attrs``: ``true_sums`` (the noiseless ``s``), ``n`` and ``radius``.
    """
    rel = simplex_release(
        np.asarray(x, float), bounds=(0.0, radius), epsilon=epsilon, rho=rho, reps=reps, rng=rng
    )
    N, R = rel.data.n, radius
    m = rel.m
    excess = (m.sum(axis=1) - N * R) / 2
    proj = m - excess[:, None]
    df = pd.DataFrame(
        {
            "m1": m[:, 0],
            "m2": m[:, 1],
            "known_n_m1": proj[:, 0],
            "known_n_m2": proj[:, 1],
            "free_count": m.sum(axis=1) / R,
        }
    )
    df.attrs.update(true_sums=np.asarray(rel.s, float), n=N, radius=float(R))
    return df
