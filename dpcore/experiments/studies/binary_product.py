"""Studies of the Binary product page: total variation against ``n`` or ``d`` over seeds, the
page's single run, and the total variation between two binary product distributions (exact or
Monte Carlo).

References
----------
docs/estimators/binary-product.md §1 (computing TV), §5 and §6.
"""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Any

import numpy as np

from dpcore import registry
from dpcore._validation import RngLike, check_positive, spawn_generators
from dpcore.data.binary import _check_d, profile, sample_binary_product
from dpcore.data.binary_rows import sample_binary_rows
from dpcore.estimators.binary_product import CheckedBinary
from dpcore.privacy import Budget
from dpcore.streams import Streams
from dpcore.theory.binary_product import _check_pq


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


def _epsilon(budget: Budget | float) -> float:
    """The pure ε of ``budget`` (a :class:`Budget` converted to its pure-DP level, which a zCDP or
    (ε, δ) budget refuses with the reason; or a bare positive ε)."""
    if isinstance(budget, Budget):
        return float(budget.to_native("pure").value)
    return check_positive(budget, "epsilon")


def simulate_tv(
    profile_name: str,
    grid: list[tuple[int, int]],
    epsilon: Budget | float,
    *,
    seeds: int = 3,
    estimators: tuple[str, ...] = ("binary_pde", "binary_naive_laplace"),
    rng: RngLike = 0,
    executor: Executor | None = None,
    **params: Any,
) -> list[dict[str, Any]]:
    """Mean TV of each estimator over ``seeds`` repetitions at each ``(n, d)`` of ``grid``.

    ``epsilon`` is a :class:`~dpcore.privacy.Budget` or a bare pure ε. Each repetition draws a
    fresh dataset from :func:`profile` (sparse storage) with a child of
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
    docs/estimators/binary-product.md §5 (prototype table) and §6.5 (TV against n and d).
    """
    epsilon = _epsilon(epsilon)
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
    profile_name: str, d: int, n: int, budget: Budget | float, streams: Streams, flip: bool
) -> dict[str, Any]:
    """One dataset of the binary product page under ``budget`` (a pure :class:`Budget`, or a bare
    ε), every draw from its own named stream of ``streams`` (:mod:`dpcore.streams`): the
    profile's ``p`` (``"sample:profile"``), ``n`` rows (``"data"``, drawn by
    :func:`dpcore.data.binary_rows.sample_binary_rows`), then through the registry
    PureDPPDE (``binary_pde``, ``"noise:binary_pde"``, ``flip`` as given), naive Laplace
    (``"noise:binary_naive_laplace"``) and one-radius truncated Laplace
    (``"noise:binary_truncated_laplace"``); and the :func:`product_tv` of each and of the
    non-private mean against ``p`` (one Monte Carlo draw, ``"sample:tv"``, shared).

    Returns ``{"p", "pde", "naive", "tv"}`` (the two estimates whole, TVs keyed ``pde``, ``naive``,
    ``truncated``, ``empirical``). A module-level function, so a process pool can run it.

    References
    ----------
    docs/estimators/binary-product.md §6 (the page's single run).
    """
    pure = Budget.pure(_epsilon(budget))
    p = profile(profile_name, d, rng=streams.rng("sample:profile"))
    X = sample_binary_rows(p, n, rng=streams.rng("data"))
    checked = CheckedBinary(X)  # checked once for the three estimators, not once each
    pde = registry.run("binary_pde", checked, pure, rng=streams.rng("noise:binary_pde"), flip=flip)
    naive = registry.run(
        "binary_naive_laplace", checked, pure, rng=streams.rng("noise:binary_naive_laplace")
    )
    trunc = registry.run(
        "binary_truncated_laplace", checked, pure, rng=streams.rng("noise:binary_truncated_laplace")
    )
    xbar = np.bincount(X.indices, minlength=d) / n  # the column means (the ones' columns)
    means = {"pde": pde.mean, "naive": naive.mean, "truncated": trunc.mean, "empirical": xbar}
    # product_tv(p, q) of each, sharing its Monte Carlo draws (the same rows each time)
    tvs = product_tv_many(p, list(means.values()), rng=streams.rng("sample:tv"))
    return {
        "p": p,
        "pde": pde,
        "naive": naive,
        "tv": {name: float(t) for name, t in zip(means, tvs, strict=True)},
    }


# --------------------------------------------------------------------------------------------
# total variation between binary product distributions (exact or Monte Carlo)

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
    docs/estimators/binary-product.md §1 ("Computing TV in the app").
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
