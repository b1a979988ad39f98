"""Studies: the simulations behind figures, each seeded by the ``rng`` convention and returning a
tidy frame.

Moved here: ``simulate_tv``, ``product_tv``, ``product_tv_many`` (moved from ``theory_binary.py``);
``Notion``, ``Statistic``, ``_pmwm``,
``_budget_kw``, ``contamination_sweep``, ``_stat``, ``full_statistic``, ``sa_error_by_group_size``
(moved from ``figures_winsorized.py``); ``LABELS``, ``KNOWN_N``, ``sample_at``, ``simulated_points``
(moved from ``figures_simplex.py``); ``run_estimator``, ``repeated_frame`` (moved from
``figures_your_data.py``); ``run_gallery``, ``release_draws`` (the Side by side page) and
``why_plan_wins`` (the Home picture), issue 16.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from dpcore import mechanisms
from dpcore._validation import RngLike, as_generator, check_positive, spawn_generators
from dpcore.data import generate
from dpcore.data.binary import _check_d, profile, sample_binary_product
from dpcore.data.dataset import Dataset
from dpcore.estimate import Estimate, EstimatorSpec
from dpcore.estimators.binary_baselines import naive_laplace, truncated_laplace
from dpcore.estimators.binary_product import pure_dp_pde
from dpcore.estimators.private_bounds import run_with_private_bounds
from dpcore.estimators.simplex import simplex_mean_draws, simplex_release
from dpcore.estimators.simplex_baselines import baseline_draws
from dpcore.estimators.winsorized import (
    WinsorizedDiagnostics,
    winsorized_mean,
    winsorized_mean_zcdp,
)
from dpcore.estimators.winsorized_baselines import clipped_mean_box_zcdp, clipped_mean_laplace
from dpcore.experiments.summaries import guarantee_label
from dpcore.privacy import Budget
from dpcore.registry import get
from dpcore.theory.binary_product import _check_pq
from dpcore.theory.gallery import GalleryEntry, entry
from dpcore.theory.simplex import mse

# --------------------------------------------------------------------------------------------
# simulation for the page: TV against n or d


def _tv_point(
    profile_name: str,
    n: int,
    d: int,
    s: int,
    g: np.random.Generator,
    epsilon: float,
    estimators: tuple[str, ...],
    params: dict[str, Any],
) -> list[dict[str, Any]]:
    """One ``(n, d)`` point and repetition ``s`` of :func:`simulate_tv` on its own child stream ``g``
    (a module-level function, so a process pool can run it)."""
    from dpcore import registry

    budget = Budget.pure(epsilon)
    p = profile(profile_name, int(d), rng=g)
    X = sample_binary_product(p, int(n), rng=g)
    means = {"empirical": np.asarray(X.mean(axis=0)).ravel()}
    for name in estimators:
        kw = {**params, "shuffle": False} if name == "binary_pde" else {}  # iid rows: no shuffle
        means[name] = registry.run(name, X, budget, rng=g, **kw).mean
    tvs = product_tv_many(p, list(means.values()), rng=g)
    return [
        {"n": n, "d": d, "estimator": name, "seed": s, "tv": float(t)}
        for name, t in zip(means, tvs, strict=True)
    ]


def simulate_tv(
    profile_name: str,
    grid: list[tuple[int, int]],
    epsilon: float,
    *,
    seeds: int = 3,
    estimators: tuple[str, ...] = ("binary_pde", "binary_naive_laplace"),
    rng: RngLike = 0,
    executor: Executor | None = None,
    **params: Any,
) -> list[dict[str, Any]]:
    """Mean TV of each estimator over ``seeds`` repetitions at each ``(n, d)`` of ``grid``.

    Each repetition draws a fresh dataset from :func:`profile` (sparse storage) with a child of
    ``rng`` (:func:`~dpcore._validation.spawn_generators`: a Generator's own children, so the same
    Generator state gives the same numbers), runs every estimator at pure ``epsilon`` through the registry
    (a zCDP estimator raises ``ValueError``: it cannot meet a pure ε budget) and measures
    :func:`product_tv`. ``params`` go to
    ``binary_pde`` only. Returns tidy records ``{n, d, estimator, seed, tv}`` plus the non-private
    empirical mean as ``"empirical"``. ``executor`` (e.g. a process pool) runs the points and
    repetitions side by side; each has its own child stream, so the records are the same with or
    without it.

    References
    ----------
    specs/binary_product.md §5 (prototype table) and §6.5 (TV against n and d).
    """
    epsilon = check_positive(epsilon, "epsilon")
    Budget.pure(epsilon)  # the budget's own checks, before any work
    children = spawn_generators(rng, len(grid) * seeds)
    jobs = [
        (profile_name, n, d, s, children[k * seeds + s], epsilon, tuple(estimators), params)
        for k, (n, d) in enumerate(grid)  # a short grid of (n, d) points x a few seeds
        for s in range(seeds)
    ]
    if executor is None:
        parts = [_tv_point(*job) for job in jobs]
    else:  # the largest n first, so the longest jobs do not start last
        order = sorted(range(len(jobs)), key=lambda i: -int(jobs[i][1]) * int(jobs[i][2]))
        futures = {i: executor.submit(_tv_point, *jobs[i]) for i in order}
        parts = [futures[i].result() for i in range(len(jobs))]
    return [r for part in parts for r in part]


def binary_single_run(
    profile_name: str, d: int, n: int, epsilon: float, seed: int, flip: bool
) -> dict[str, Any]:
    """One dataset of the binary product page at pure ``epsilon``: the profile's ``p`` (seed
    ``seed``), ``n`` rows (``seed + 1``), PureDPPDE (``seed + 2``, ``flip`` as given), naive Laplace
    (``seed + 3``) and one-radius truncated Laplace (``seed + 4``); and the :func:`product_tv` of
    each and of the non-private mean against ``p`` (one Monte Carlo draw on ``seed``, shared).

    Returns ``{"p", "pde", "naive", "tv"}`` (the two estimates whole, TVs keyed ``pde``, ``naive``,
    ``truncated``, ``empirical``). A module-level function, so a process pool can run it.

    References
    ----------
    specs/binary_product.md §6 (the page's single run).
    """
    p = profile(profile_name, d, rng=seed)
    X = sample_binary_product(p, n, rng=seed + 1)
    pde = pure_dp_pde(X, epsilon=epsilon, rng=seed + 2, flip=flip)
    naive = naive_laplace(X, epsilon=epsilon, rng=seed + 3)
    trunc = truncated_laplace(X, epsilon=epsilon, rng=seed + 4)
    xbar = np.asarray(X.mean(axis=0)).ravel()
    means = {"pde": pde.mean, "naive": naive.mean, "truncated": trunc.mean, "empirical": xbar}
    # product_tv(p, q, rng=seed) of each, sharing its Monte Carlo draws (the same rows each time)
    tvs = product_tv_many(p, list(means.values()), rng=seed)
    return {
        "p": p,
        "pde": pde,
        "naive": naive,
        "tv": {name: float(t) for name, t in zip(means, tvs, strict=True)},
    }


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


def _budget_kw(notion: Notion, budget: float) -> dict[str, float]:
    return {"epsilon": budget} if notion == "pure" else {"rho": budget}


def contamination_sweep(
    x: np.ndarray,
    fractions: np.ndarray,
    *,
    shift: float,
    notion: Notion,
    budget: float,
    bounds: tuple[float, float],
    eta: float,
    c: float = 10.0,
    reps: int = 60,
    rng: RngLike = None,
) -> pd.DataFrame:
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
            X[pick, np.arange(reps)[None, :]] = out_value + 0.05 * x.std() * g.standard_normal(
                (k, reps)
            )
        results = {
            f"PMWM (η = {eta:g})": _pmwm(notion)(
                X, bounds=bounds, eta=eta, c=c, rng=g, **kw, **extra
            ),
            "PMWM (η = 0)": _pmwm(notion)(X, bounds=bounds, eta=0.0, c=c, rng=g, **kw, **extra),
            "clipped mean (public bounds)": clipped_fn(X, bounds=bounds, rng=g, **kw),
        }
        for name, est in results.items():
            err = est.mean - target
            rows.append(
                {
                    "contamination": float(f),
                    "estimator": name,
                    "rmse": float(np.sqrt(np.mean(err**2))),
                    "bias": float(np.mean(est.diagnostics.noiseless_mean - target)),
                    "fallbacks": int(
                        est.diagnostics.fallback_count
                        if isinstance(est.diagnostics, WinsorizedDiagnostics)
                        else 0
                    ),
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
    budget: float,
    bounds: tuple[float, float],
    reps: int = 40,
    c: float = 1.0,
    rng: RngLike = None,
) -> pd.DataFrame:
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
    b: dict[str, Any] = {"epsilon": epsilon, "rho": rho}
    bounds = (0.0, radius)
    side = {"side_information": neighbouring == "add-remove"}
    rows = []
    for p in ps:  # a handful of positions; each call is vectorised over repetitions
        x = sample_at(p, n, radius, rng=g)
        mu = x.mean()
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


def run_estimator(
    spec: EstimatorSpec,
    data: Dataset,
    budget: Budget,
    *,
    private_share: float | None = None,
    coarse_bounds: tuple | None = None,
    quantiles: tuple[float, float] = (0.01, 0.99),
    rng: RngLike = None,
) -> Estimate:
    """Run ``spec`` with the data's bounds as public (``private_share=None``) or after a private
    bounds step spending ``private_share`` of the budget
    (:func:`dpcore.estimators.private_bounds.run_with_private_bounds`)."""
    if private_share is None:
        return spec.run(data, budget, rng=rng)
    return run_with_private_bounds(
        spec,
        data,
        budget,
        share=private_share,
        coarse_bounds=coarse_bounds,
        quantiles=quantiles,
        rng=rng,
    )


def repeated_frame(
    specs: Sequence[EstimatorSpec],
    data: Dataset,
    budget: Budget,
    reps: int,
    seed: int,
    *,
    private_share: float | None = None,
    coarse_bounds: tuple | None = None,
    quantiles: tuple[float, float] = (0.01, 0.99),
) -> pd.DataFrame:
    """``reps`` runs of each estimator on the same data with independent noise (child seeds spawned
    from ``seed``); one row per run with its l2 error against the non-private mean."""
    children = np.random.SeedSequence(seed).spawn(reps)
    rows = []
    for spec in specs:
        for r, child in enumerate(children):
            est = run_estimator(
                spec,
                data,
                budget,
                private_share=private_share,
                coarse_bounds=coarse_bounds,
                quantiles=quantiles,
                rng=np.random.default_rng(child),
            )
            err = np.asarray(est.mean, dtype=float) - data.true_mean
            rows.append(
                {
                    "estimator": spec.label,
                    "name": spec.name,
                    "color": spec.color,
                    "run": r,
                    "guarantee": guarantee_label(spec.notion, spec.neighbouring, spec.spend_factor),
                    "l2_error": float(np.linalg.norm(err)),
                }
            )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# the Side by side gallery (issue 16): one run per estimator, and repeated releases


def run_gallery(
    data: Any,
    budget: Budget,
    names: Sequence[str],
    coords: Sequence[int],
    *,
    seed: int = 0,
    prob: float = 0.95,
) -> tuple[list[GalleryEntry], dict[str, str]]:
    """One real run of each estimator in ``names`` on ``data`` under ``budget``.

    Estimator ``k`` in ``names`` runs with seed ``(seed, k)`` (a child stream), so adding an
    estimator does not change the others. Estimators that cannot meet ``budget`` (a zCDP
    estimator under a pure ε budget) or refuse the data are returned in the second value with the
    reason, not run.
    """
    out: list[GalleryEntry] = []
    skipped: dict[str, str] = {}
    for spec in (get(n) for n in names):
        if not spec.meets(budget):
            skipped[spec.name] = (
                f"{spec.label}: ρ-zCDP cannot meet a pure ε budget (ε-DP implies ε²/2-zCDP, "
                "never the reverse)."
            )
            continue
        rng = np.random.default_rng([int(seed), _stable(spec.name)])
        try:
            est = spec.run(data, budget, rng=rng)
        except ValueError as err:
            skipped[spec.name] = f"{spec.label}: {err}"
            continue
        out.append(entry(spec, est, coords, prob))
    return out, skipped


def _stable(name: str) -> int:
    return int.from_bytes(name.encode()[:8].ljust(8, b"\0"), "little") % (2**31)


def release_draws(
    name: str, data: Any, budget: Budget, *, reps: int = 100, rng: RngLike = None
) -> np.ndarray:
    """``reps`` releases of estimator ``name`` on the same ``data`` (hypothetical outcomes), shape (reps, d).

    Every repetition reruns the whole estimator (private centre, scale and radius included) with a
    child stream of ``rng`` (``SeedSequence.spawn``), so the spread shows all of its randomness, not
    only the final noise. The simplex estimators use their vectorised draw function.
    """
    if not 1 <= int(reps) <= 1000:
        raise ValueError(f"reps must be between 1 and 1000; got {reps!r}.")
    spec = get(name)
    if spec.family == "simplex" and hasattr(spec.func, "__module__"):
        from dpcore.estimators import simplex

        if spec.func is simplex.simplex_mean:
            conv = budget.to_native(spec.notion)
            kw = {**spec.params, **conv.kwargs, "bounds": getattr(data, "bounds", None)}
            return simplex.simplex_mean_draws(
                getattr(data, "x", data), reps=int(reps), rng=rng, **kw
            )
    seq = (
        rng
        if isinstance(rng, np.random.SeedSequence)
        else np.random.SeedSequence(
            None
            if rng is None
            else int(rng)
            if not isinstance(rng, np.random.Generator)
            else int(rng.integers(2**63))
        )
    )
    children = seq.spawn(int(reps))
    return np.stack(
        [
            np.asarray(spec.run(data, budget, rng=np.random.default_rng(c)).mean, float).ravel()
            for c in children
        ]
    )


# ---------------------------------------------------------------------------------------------
# the Home picture (issue 16): why PLAN wins on skewed data, over many seeds

#: The setting of the Home picture, the Compare story "Variance skew favours PLAN": variance skew
#: α = 2 (σᵢ² = (d/i)²), n = 4000, d = 128, ρ = 0.25. With the robust-radius PLAN and IOME of issue 12,
#: PLAN had the strictly smallest ℓ2 error of the three in 18 of the 20 seeds the page runs (data seeds
#: 0-19) and in 39 of 40 others (seeds 100-139): 57 of 60, 95%. At d = 32, n = 2000 (ρ = 0.5 or 0.1)
#: its lead over IOME held in only 45-80% of seeds, so the page makes no claim there. The page states
#: the count it measures, not these numbers.
HOME_SETTING = {"distribution": "gaussian", "n": 4000, "d": 128, "skew": 2.0, "rho": 0.25}
ESTIMATORS = ("plan", "iome_paper", "gaussian_private")


@dataclass(frozen=True)
class Evidence:
    """Errors over seeds and one run's per-coordinate noise.

    Attributes
    ----------
    errors : DataFrame
        One row per (seed, estimator): ``seed``, ``estimator``, ``label``, ``color``, ``error`` (ℓ2).
    noise : DataFrame
        One row per (estimator, coordinate) of the first seed's run: ``coordinate`` (1-based),
        ``noise_std`` and the data's ``sigma``.
    setting : dict
        The setting (distribution, n, d, skew, rho, seeds).
    """

    errors: pd.DataFrame
    noise: pd.DataFrame
    setting: dict

    def win_rate(self, winner: str = "plan") -> float:
        """Fraction of seeds where ``winner`` has the strictly smallest error."""
        wide = self.errors.pivot(index="seed", columns="estimator", values="error")
        others = wide.drop(columns=winner)
        return float(np.mean(wide[winner].to_numpy() < others.min(axis=1).to_numpy()))

    def medians(self) -> dict[str, float]:
        return self.errors.groupby("estimator")["error"].median().to_dict()

    def worst(self) -> dict[str, float]:
        return self.errors.groupby("estimator")["error"].max().to_dict()


def why_plan_wins(
    *,
    distribution: str = "gaussian",
    n: int = 4000,
    d: int = 128,
    skew: float = 2.0,
    rho: float = 0.25,
    seeds: int = 20,
    base_seed: int = 0,
) -> Evidence:
    """Run :data:`ESTIMATORS` on ``seeds`` datasets (data seed ``base_seed + k``, estimator seed ``k``).

    Each run is a full private run through the registry under ``Budget.zcdp(rho)``; every estimator
    here is ρ-zCDP with replace-one neighbours, so they meet the same budget.
    """
    if int(seeds) < 1:
        raise ValueError(f"seeds must be >= 1; got {seeds!r}.")
    budget = Budget.zcdp(rho)
    rows: list[dict] = []
    noise_rows: list[dict] = []
    for k in range(int(seeds)):
        ds = generate(distribution, n, d, skew, rng=base_seed + k)
        for name in ESTIMATORS:
            spec = get(name)
            est = spec.run(ds, budget, rng=k)
            rows.append(
                {
                    "seed": k,
                    "estimator": name,
                    "label": spec.label,
                    "color": spec.color,
                    "error": float(np.linalg.norm(est.mean - ds.true_mean)),
                }
            )
            if k == 0:
                noise_rows += [
                    {
                        "estimator": name,
                        "label": spec.label,
                        "color": spec.color,
                        "coordinate": i + 1,
                        "noise_std": float(v),
                        "sigma": float(s),
                    }
                    for i, (v, s) in enumerate(
                        zip(
                            np.asarray(est.diagnostics.noise_std),
                            np.asarray(ds.true_std),
                            strict=True,
                        )
                    )
                ]
    setting = {
        "distribution": distribution,
        "n": n,
        "d": d,
        "skew": skew,
        "rho": rho,
        "seeds": int(seeds),
    }
    return Evidence(pd.DataFrame(rows), pd.DataFrame(noise_rows), setting)


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
    specs/simplex.md §2.3 (S2, the free count) and §6.4.
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


# --------------------------------------------------------------------------------------------
# total variation between binary product distributions (exact or Monte Carlo; specs/binary_product.md §1)

#: Largest d whose TV is computed by enumerating the 2^d points.
EXACT_TV_MAX_D = 16
#: Monte Carlo draws above it.
MC_DRAWS = 20_000


def _log_ratio_terms(
    p: np.ndarray, q: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-coordinate log Q/P when the bit is 1 (``a``) or 0 (``c``), with impossible events masked."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where((p > 0) & (q > 0), np.log(q) - np.log(p), 0.0)
        c = np.where((p < 1) & (q < 1), np.log1p(-q) - np.log1p(-p), 0.0)
    impossible1 = (q == 0) & (p > 0)  # Q gives 0 mass to a 1 that P can produce
    impossible0 = (q == 1) & (p < 1)
    return a, c, impossible1, impossible0


def product_tv(
    p: Any, q: Any, *, rng: RngLike = None, draws: int = MC_DRAWS, exact_max_d: int = EXACT_TV_MAX_D
) -> float:
    """Total variation ``½ Σ_x |P(x) − Q(x)|`` between ``⊗Ber(p_j)`` and ``⊗Ber(q_j)``.

    Exact enumeration over ``2^d`` points when ``d <= exact_max_d`` (default 16); otherwise the
    unbiased estimate ``E_{x~P}[(1 − Q(x)/P(x))_+]`` over ``draws`` samples (each term in [0, 1],
    so the standard error is at most ``0.5/sqrt(draws)``), computed in log space; ``q_j ∈ {0, 1}``
    is allowed.

    References
    ----------
    specs/binary_product.md §1 ("Computing TV in the app").
    """
    return float(product_tv_many(p, [q], rng=rng, draws=draws, exact_max_d=exact_max_d)[0])


def product_tv_many(
    p: Any,
    qs: list[Any],
    *,
    rng: RngLike = None,
    draws: int = MC_DRAWS,
    exact_max_d: int = EXACT_TV_MAX_D,
) -> np.ndarray:
    """:func:`product_tv` of several ``q`` against one ``p``, sharing the enumeration or the Monte
    Carlo draws (common random numbers: each value is still unbiased, and comparisons between the
    ``q``'s are sharper)."""
    pv = np.atleast_1d(np.asarray(p, dtype=float))
    qvs = [_check_pq(pv, q)[1] for q in qs]
    d = pv.size
    if d <= exact_max_d:
        bits = ((np.arange(2**d)[:, None] >> np.arange(d)) & 1).astype(bool)

        def mass(v: np.ndarray) -> np.ndarray:
            logs = np.where(
                bits, np.log(np.maximum(v, 1e-300)), np.log(np.maximum(1 - v, 1e-300))
            ).sum(1)
            zero = (bits & (v == 0)).any(1) | (~bits & (v == 1)).any(1)
            return np.where(zero, 0.0, np.exp(logs))

        P = mass(pv)
        return np.array([0.5 * np.abs(P - mass(qv)).sum() for qv in qvs])
    draws = _check_d(draws, "draws")
    x = sample_binary_product(pv, draws, rng=rng)
    out = []
    for qv in qvs:  # a few estimates against the same draws
        a, c, imp1, imp0 = _log_ratio_terms(pv, qv)
        log_ratio = np.asarray(x @ (a - c)).ravel() + c.sum()
        bad = np.asarray(x @ imp1.astype(float)).ravel() + (
            imp0.sum() - np.asarray(x @ imp0.astype(float)).ravel()
        )
        out.append(float(np.where(bad > 0, 1.0, -np.expm1(np.minimum(log_ratio, 0.0))).mean()))
    return np.array(out)


# --------------------------------------------------------------------------------------------
# what a picture draws (figures only draw: their random choices are made here)


def subsample(n: int, max_points: int, rng: RngLike = 0) -> np.ndarray:
    """Sorted row indices of a seeded uniform subsample of at most ``max_points`` rows (all if
    ``n`` fits).

    >>> subsample(5, 10).tolist()
    [0, 1, 2, 3, 4]
    """
    if max_points < 1:
        raise ValueError(f"max_points must be >= 1; got {max_points!r}.")
    if n <= max_points:
        return np.arange(n)
    return np.sort(as_generator(rng).choice(n, size=max_points, replace=False))


def display_sample(
    n: int,
    *,
    max_points: int = 2000,
    one_d: bool = False,
    jitter: float = 0.0,
    rng: RngLike = 0,
) -> pd.DataFrame:
    """The rows a scatter picture draws and their display-only offsets, for
    :func:`dpcore.figures.plan.plan_steps_figure` (``sample=``).

    From ``rng``, in this order: the seeded uniform subsample (:func:`subsample`), the 1-D heights
    (``one_d``: the meaningless vertical axis, uniform on [-1, 1]) and the display jitter (uniform
    on ``[-jitter, jitter]`` in units of each panel's spread, so that discrete rows on a few corners
    do not hide one another). Nothing here touches the data's values: a figure draws the exact
    positions and moves only the shown markers.

    Returns
    -------
    DataFrame
        One row per drawn data row: ``row`` (index into the data), ``height`` (NaN in 2-D),
        ``dx``, ``dy`` (0 without jitter).
    """
    g = as_generator(rng)
    rows = subsample(n, max_points, g)
    heights = g.uniform(-1.0, 1.0, rows.size) if one_d else np.full(rows.size, np.nan)
    offsets = (
        g.uniform(-1.0, 1.0, (rows.size, 2)) * float(jitter) if jitter else np.zeros((rows.size, 2))
    )
    return pd.DataFrame({"row": rows, "height": heights, "dx": offsets[:, 0], "dy": offsets[:, 1]})


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
