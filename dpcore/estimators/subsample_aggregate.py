"""Subsample-and-aggregate (S&A) with the private modified winsorized mean as the aggregator.

Pseudocode (docs/estimators/winsorized.md §3)::

    1  draw a data-independent random partition of the N units (rows, or persons given ``ids``)
       into k groups of m = floor(N / k) units; drop the remainder
    2  theta_j <- T(group j) in R^p, non-privately; a failed or non-finite T gives a fixed value
    3  for each coordinate r: PMWM({theta_{j,r}}_j) with eps/p (or rho/p), split (1/4, 1/4, 1/2)
    4  release (theta~_1, ..., theta~_p)

Privacy
-------
* Neighbouring relation, without ``ids``: replace-one row, N public. The partition is a random
  permutation of ``range(N)`` cut into k groups; it depends only on N, k and the seed.
* With ``ids`` (person-level): a person's group is a keyed hash of their own id (:func:`hash_groups`,
  key drawn from ``rng``), and ``k`` must be passed (public). Adding or removing one person (all
  their rows) changes exactly one group, so the guarantee is **person-level add/remove** at the
  stated budget. Changing one person's rows while keeping their id (a fixed roster) also changes
  one group. Replacing a person by one with another id is a removal plus an addition: at most two
  groups change, which costs twice the budget (2ε, or 4ρ) by group privacy. (Assigning groups by
  rank among the distinct ids, as before, let one replacement move everyone's group.) Groups have
  random sizes; an empty group counts as failed.
* Changing one unit changes at most one group, hence at most one ``theta_j``: a swap of one input
  of the aggregator. A failing statistic maps to a fixed value (default: the centre of the
  bounds), so the number of groups never depends on the data (the authors' code drops failed fits,
  which makes k data-dependent; spec §3 "Privacy").
* The aggregator is :func:`dpcore.estimators.winsorized.winsorized_mean` (pure eps) or
  :func:`~dpcore.estimators.winsorized.winsorized_mean_zcdp` (rho, per-coordinate mean noise as in
  the paper), with every part divided by p. Its ledger is the S&A ledger as it is: every line in it
  was written by the :mod:`dpcore.mechanisms` call that drew the noise (quantile walks, mean), and
  it sums to the budget. Grouping draws no privacy noise and charges nothing.

The statistic is arbitrary user code, so it is called once per group (a loop over the k groups,
not over rows); ``"mean"`` and ``"median"`` without ``ids`` are vectorised.

References
----------
Ramsay & Spicker, arXiv 2501.14095 (v1), §5 and Corollary 5.1; docs/estimators/winsorized.md §3.
Nissim, Raskhodnikova, Smith. "Smooth sensitivity and sampling in private data analysis." STOC 2007.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

import numpy as np
import pandas as pd

from dpcore import mechanisms
from dpcore._validation import (
    RngLike,
    check_bounds,
    check_data,
    check_int,
)
from dpcore.estimate import Cost, Estimate
from dpcore.estimators._options import EstimatorOptions, Family
from dpcore.estimators.subsample_k import KGuidance, choose_k, sa_error_bound
from dpcore.estimators.winsorized import (
    DEFAULT_SPLIT,
    WinsorizedDiagnostics,
    winsorized_mean,
    winsorized_mean_zcdp,
)


@dataclass(kw_only=True)
class SubsampleDiagnostics(WinsorizedDiagnostics):
    """The aggregator's (PMWM's) diagnostics plus the groups (paper Algorithm 3).

    Attributes
    ----------
    group_statistics : array (k, p)
        The statistic of each group (the aggregator's input).
    failed : bool array (k,)
        Which groups failed and took ``failure_value`` (data-dependent: read only for teaching).
    groups : array (k, m) or list of arrays
        Row indices of each group.
    k : int
        Number of groups.
    group_size : int or None
        Rows per group (``None`` with ``ids``).
    failure_value : array (p,)
        The public value of a failed group.
    """

    group_statistics: np.ndarray
    failed: np.ndarray
    groups: Any
    k: int
    group_size: int | None
    failure_value: np.ndarray


Statistic = str | Callable[[np.ndarray], Any]


def slope(group: np.ndarray) -> float:
    """Least-squares slope of column 1 on column 0 of a group (a regression statistic for S&A).

    Raises ``ValueError`` when the covariate is constant (S&A then maps the group to the fixed
    failure value)."""
    g = np.asarray(group, dtype=float)
    if g.ndim != 2 or g.shape[1] < 2:
        raise ValueError("slope needs rows of (covariate, response): an array with two columns.")
    xc = g[:, 0] - g[:, 0].mean()
    sxx = float(xc @ xc)
    if sxx <= 0:
        raise ValueError("the covariate is constant in this group; the slope is undefined.")
    return float(xc @ (g[:, 1] - g[:, 1].mean()) / sxx)


_NAMED: dict[str, Callable[[np.ndarray], Any]] = {
    "mean": lambda g: np.mean(g, axis=0),
    "median": lambda g: np.median(g, axis=0),
    "slope": slope,
}


def partition(
    n_units: int, *, k: int | None = None, group_size: int | None = None, rng: RngLike = None
) -> np.ndarray:
    """A data-independent random partition of ``range(n_units)`` into k groups of equal size.

    Parameters
    ----------
    n_units : int
        Number of units (public).
    k, group_size : int
        Exactly one: the number of groups, or the units per group (then ``k = n_units // size``;
        the paper's notebooks and Table 3 use the group size).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (k, m)
        Row j holds the units of group j; ``n_units - k m`` units are dropped.

    References
    ----------
    docs/estimators/winsorized.md §3 step 1 and §9 property 10.
    """
    n_units = int(n_units)
    if (k is None) == (group_size is None):
        raise ValueError(
            "pass exactly one of k (number of groups) or group_size (units per group)."
        )
    if group_size is not None:
        k = n_units // check_int(group_size, "group_size (units per group)", minimum=1)
    k = check_int(k, "k (number of groups)")
    if k < 2:
        raise ValueError(
            f"subsample-and-aggregate needs at least 2 groups; with {n_units} units this gives "
            f"k = {k}. Use a smaller group_size or more data."
        )
    if k > n_units:
        raise ValueError(f"k = {k} groups is more than the {n_units} units; choose k <= {n_units}.")
    m = n_units // k
    return mechanisms.generator(rng).permutation(n_units)[: k * m].reshape(k, m)


def hash_groups(ids: np.ndarray, k: int, *, rng: RngLike = None) -> np.ndarray:
    """Group label in ``range(k)`` of every row: a keyed hash of the row's person id.

    The key (16 printable characters, about 105 bits) is drawn from ``rng``; the hash is SipHash-2-4
    (:func:`pandas.util.hash_array` on the ids as strings, vectorised). A person's group therefore
    depends on their own id and the key only, never on who else is in the data: adding, removing or
    changing one person moves only that person's rows.

    Parameters
    ----------
    ids : array, shape (n,)
        Person identifier of each row (any type; compared by its string form).
    k : int
        Number of groups (public).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (n,)

    References
    ----------
    docs/estimators/winsorized.md §3 step 1. Aumasson & Bernstein, "SipHash"
    (2012).
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ValueError(f"k (the public number of groups) must be an integer >= 2; got {k!r}.")
    codes = mechanisms.generator(rng).integers(33, 127, size=16)  # printable ASCII, no space
    key = "".join(chr(int(c)) for c in codes)
    h = pd.util.hash_array(
        np.asarray(ids).astype(str).astype(object), hash_key=key, categorize=True
    )
    return (h % np.uint64(k)).astype(np.int64)


def rows_of_groups(labels: np.ndarray, k: int) -> list[np.ndarray]:
    """Row indices of each of the ``k`` groups given each row's group label (a group may be empty)."""
    lab = np.asarray(labels, dtype=np.int64)
    order = np.argsort(lab, kind="stable")
    starts = np.searchsorted(lab[order], np.arange(k + 1))
    return [order[starts[j] : starts[j + 1]] for j in range(k)]


def group_statistics(
    x: np.ndarray,
    statistic: Statistic,
    groups: np.ndarray | Sequence[np.ndarray],
    *,
    failure_value: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``theta_j = T(group j)`` for every group, with failures mapped to ``failure_value``.

    ``groups`` is a ``(k, m)`` array of row indices (:func:`partition`) or a list of ``k`` row-index
    arrays (:func:`rows_of_groups`). A group fails when the statistic raises, returns a non-finite
    value or a value of the wrong length ``p = len(failure_value)`` (an empty group fails).

    Returns
    -------
    (theta, failed) : array (k, p), bool array (k,)
    """
    X = np.asarray(x, dtype=float)
    X2 = X.reshape(X.shape[0], -1)
    fail = np.asarray(failure_value, dtype=float).ravel()
    p = fail.size
    k = len(groups)
    if (
        isinstance(groups, np.ndarray)
        and groups.ndim == 2
        and isinstance(statistic, str)
        and statistic in ("mean", "median")
        and X2.shape[1] == p
    ):
        blocks = X2[groups]  # (k, m, d)
        theta = blocks.mean(axis=1) if statistic == "mean" else np.median(blocks, axis=1)
        return theta, np.zeros(k, dtype=bool)
    func = _NAMED[statistic] if isinstance(statistic, str) else statistic
    theta = np.empty((k, p))
    failed = np.zeros(k, dtype=bool)
    for j, rows in enumerate(groups):  # one call per group: the statistic is arbitrary user code
        try:
            if len(rows) == 0:
                raise ValueError("empty group")
            val = np.asarray(func(X[rows]), dtype=float).ravel()
            ok = val.size == p and bool(np.all(np.isfinite(val)))
        except Exception:  # noqa: BLE001 - any failure of user code maps to the fixed value
            ok = False
        failed[j] = not ok
        theta[j] = val if ok else fail
    return theta, failed


def _check_inputs(
    x: Any,
    epsilon: float | None,
    rho: float | None,
    ids: Any,
    k: int | None,
    group_size: int | None,
    statistic: Any,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The data and the unit ids checked (a ``ValueError`` naming the fix)."""
    if (epsilon is None) == (rho is None):
        raise ValueError("pass exactly one of epsilon (pure DP) or rho (zCDP).")
    arr = check_data(x, min_rows=4)
    if ids is not None:
        ids = np.asarray(ids)
        if ids.shape != (arr.shape[0],):
            raise ValueError(
                f"ids must have one entry per row (shape ({arr.shape[0]},)); got {ids.shape}."
            )
        if k is None or group_size is not None:
            raise ValueError(
                "with ids, pass k (the public number of groups) and not group_size: the number "
                "of persons is not public under person-level add/remove, so k must not be "
                "derived from it."
            )
    if not (isinstance(statistic, str) and statistic in _NAMED) and not callable(statistic):
        raise ValueError(
            f"statistic must be 'mean', 'median', 'slope' or a callable; got {statistic!r}."
        )
    return arr, ids


def _split_groups(
    n_units: int, ids: np.ndarray | None, k: int | None, group_size: int | None, g: Any
) -> tuple[np.ndarray | list[np.ndarray], int, int | None]:
    """The groups (row indices), their number and their common size (``None`` under ids)."""
    if ids is None:
        groups = partition(n_units, k=k, group_size=group_size, rng=g)
        return groups, int(groups.shape[0]), int(groups.shape[1])
    labels = hash_groups(ids, int(k), rng=g)  # type: ignore[arg-type]
    return rows_of_groups(labels, int(k)), int(k), None  # type: ignore[arg-type]


def _statistic_range(
    arr: np.ndarray, statistic: Any, bounds: Any, dim: int | None, failure_value: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The statistic's public range ``(a, b)`` in its dimension, and a failed group's value."""
    lo_in = (
        np.asarray(bounds[0], dtype=float)
        if isinstance(bounds, (tuple, list)) and len(bounds) == 2
        else None
    )
    if lo_in is None:
        raise ValueError("bounds must be a pair (lower, upper) for the statistic's range.")
    hi_in = np.asarray(bounds[1], dtype=float)
    if dim is None:
        sizes = {lo_in.size, hi_in.size} - {1}
        if failure_value is not None and np.size(failure_value) > 1:
            sizes.add(int(np.size(failure_value)))
        if sizes:
            dim = max(sizes)
        elif isinstance(statistic, str) and statistic in ("mean", "median"):
            dim = arr.shape[1] if arr.ndim == 2 else 1
        else:
            dim = 1  # a callable with scalar bounds is taken to return one number
    a, b = check_bounds(bounds, int(dim))
    fail = (
        (a + b) / 2.0
        if failure_value is None
        else np.broadcast_to(np.asarray(failure_value, dtype=float), (int(dim),)).astype(float)
    )
    if not np.all(np.isfinite(fail)):
        raise ValueError(
            f"failure_value must be finite (a failed group's public value); got {failure_value!r}."
        )
    return a, b, fail


def _aggregate(
    theta: np.ndarray,
    epsilon: float | None,
    rho: float | None,
    bounds: tuple[np.ndarray, np.ndarray],
    g: Any,
    **pmwm: Any,
) -> Estimate:
    """The private modified winsorized mean of the group statistics (pure ε or ρ-zCDP)."""
    if epsilon is not None:
        return winsorized_mean(theta, epsilon=epsilon, bounds=bounds, rng=g, **pmwm)
    assert rho is not None  # exactly one of epsilon, rho (checked by _check_inputs)
    return winsorized_mean_zcdp(
        theta, rho=rho, bounds=bounds, mean_noise="per_coordinate", rng=g, **pmwm
    )


def subsample_and_aggregate(
    x: np.ndarray,
    statistic: Statistic = "mean",
    *,
    bounds: tuple,
    epsilon: float | None = None,
    rho: float | None = None,
    k: int | None = None,
    group_size: int | None = None,
    ids: np.ndarray | None = None,
    dim: int | None = None,
    failure_value: float | np.ndarray | None = None,
    c: float = 1.0,
    eta: float = 0.0,
    beta: float = 1.001,
    split: Sequence[float] = DEFAULT_SPLIT,
    rng: RngLike = None,
) -> Estimate:
    """Subsample-and-aggregate any statistic, aggregated by the private modified winsorized mean.

    Parameters
    ----------
    x : array, shape (n,) or (n, d)
        Records (rows).
    statistic : "mean", "median", "slope" or callable
        ``T``: maps the rows of one group to a scalar or a length-p vector. Exceptions and
        non-finite outputs map to ``failure_value``.
    bounds : (a, b)
        Public prior range of the statistic (scalars or length-p arrays) for the aggregator.
    epsilon, rho : float
        Exactly one: pure-DP (default aggregator) or zCDP budget.
    k, group_size : int
        Exactly one (default ``k`` from :func:`choose_k`).
    ids : array, shape (n,), optional
        Person identifiers: each person's rows go to the group given by a keyed hash of their id,
        and the guarantee is person-level add/remove (see Privacy in the module docstring). Requires
        ``k``. Without ids, every row is a unit (replace-one row).
    dim : int, optional
        Output length p of the statistic, fixed in advance (never read off the data): default from
        array bounds or failure_value, else d for "mean"/"median" and 1 for "slope" or a callable.
        A group whose output has another length counts as failed.
    failure_value : float or array, optional
        Value of a failed group (default: the centre of bounds). It must not depend on the data.
    c, eta, beta, split
        PMWM parameters (c = 1 as in the paper's data analysis).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    Estimate
        The aggregator's estimate; its :class:`SubsampleDiagnostics` add ``group_statistics`` (k, p),
        ``failed`` (k,), ``groups`` (a (k, m) index array, or with ``ids`` a list of row-index
        arrays), ``k`` and ``group_size`` (``None`` with ``ids``). The number of failed groups is
        data-dependent and is kept in ``diagnostics.nonprivate["failed_groups"]``, not in the
        warnings (it is not part of the private release).

    Privacy
    -------
    Without ``ids``: replace-one row, N public; with ``ids``: person-level add/remove (a
    replacement by another id costs twice the budget). One unit changes at most one group
    statistic, a swap of one input of the aggregator, so S&A is exactly as private as PMWM on the
    k statistics: ``epsilon``-DP or ``rho``-zCDP (module docstring). The ledger is the aggregator's,
    written by its mechanisms (stages "upper quantile: threshold/queries", "lower quantile: ...",
    "winsorized mean: ... noise"). Public inputs (bounds, failure_value, c, eta, beta) must be
    finite; they are checked before any noise is drawn.

    References
    ----------
    Ramsay & Spicker (2025) §5; docs/estimators/winsorized.md §3, §9 property 10.
    """
    arr, ids = _check_inputs(x, epsilon, rho, ids, k, group_size, statistic)
    n_units = arr.shape[0]
    if k is None and group_size is None:
        k = choose_k(n_units, epsilon=epsilon, rho=rho, c=c, eta=eta, beta=beta).k
    g = mechanisms.generator(rng)
    # 1. split the units into k disjoint groups (public sizes; persons by hash under ids)
    groups, k_used, size = _split_groups(n_units, ids, k, group_size, g)
    # 2. the statistic on every group, a failed group giving its public value
    a, b, fail = _statistic_range(arr, statistic, bounds, dim, failure_value)
    theta, failed = group_statistics(arr, statistic, groups, failure_value=fail)
    # 3. aggregate the k group statistics with the private modified winsorized mean
    est = _aggregate(theta, epsilon, rho, (a, b), g, c=c, eta=eta, beta=beta, split=split)
    # The number of failed groups depends on the data: not part of the release.
    est.diagnostics.nonprivate["failed_groups"] = int(failed.sum())
    agg = est.diagnostics
    est.diagnostics = SubsampleDiagnostics(
        **{f.name: getattr(agg, f.name) for f in fields(agg)},
        group_statistics=theta,
        failed=failed,
        groups=groups,
        k=k_used,
        group_size=size,
        failure_value=fail,
    )
    return est


@dataclass(frozen=True, kw_only=True)
class SaOptions(EstimatorOptions):
    """Registry entries of subsample-and-aggregate: a per-group statistic (default the mean)
    aggregated by the pure (``sa_winsorized``) or zCDP (``sa_winsorized_zcdp``, the paper's
    data-analysis setting) PMWM; called as ``sa_winsorized(x, epsilon=..., bounds=..., rng=...)``.

    See :func:`subsample_and_aggregate`. With neither ``k`` nor ``group_size``, k comes from
    :func:`choose_k` (unbiased statistic, quantile walks across the width of ``bounds``).
    """

    notion: Literal["pure", "zcdp"] = "pure"
    statistic: Statistic = "mean"
    group_size: int | None = None
    k: int | None = None
    name: str = field(default="sa_winsorized", compare=False)
    fixed: tuple[str, ...] = field(default=("notion",), compare=False)

    def run(self, x: Any, *, rng: RngLike, bounds: Any = None, **budget: Any) -> Estimate:
        """S&A with these options; ``budget`` is ``epsilon=`` or ``rho=``."""
        arr = check_data(x, min_rows=4)
        k, group_size = self.k, self.group_size
        if k is None and group_size is None:
            lo, hi = check_bounds(bounds, arr.shape[1] if arr.ndim == 2 else 1)
            p = arr.shape[1] if arr.ndim == 2 else 1
            k = choose_k(arr.shape[0], p=p, bounds_width=float(np.max(hi - lo)), **budget).k
        return subsample_and_aggregate(
            arr, self.statistic, bounds=bounds, k=k, group_size=group_size, rng=rng, **budget
        )


sa_winsorized = SaOptions()
sa_winsorized_zcdp = SaOptions(notion="zcdp", name="sa_winsorized_zcdp")

_SA = Family(
    family="winsorized",
    data_kinds=frozenset({"real", "bounded"}),
    cost=Cost(per_value_us=0.2, overhead_ms=2.0),
)

_SA.register(
    "sa_pmwm",
    "S&A PMWM (ε)",
    1020,
    sa_winsorized,
    color="#1a9e8f",
    detail="Subsample & aggregate (PMWM, pure ε)",
    description="Split the rows into k groups, compute each group's mean, aggregate the k means with the "
    "private winsorized mean.",
)

_SA.register(
    "sa_pmwm_zcdp",
    "S&A PMWM (ρ)",
    1030,
    sa_winsorized_zcdp,
    color="#8fd4cb",
    detail="Subsample & aggregate (PMWM, zCDP)",
    description="Subsample-and-aggregate of group means with the zCDP winsorized-mean aggregator.",
)


__all__ = [
    "KGuidance",
    "SubsampleDiagnostics",
    "choose_k",
    "group_statistics",
    "hash_groups",
    "partition",
    "rows_of_groups",
    "sa_error_bound",
    "sa_winsorized",
    "sa_winsorized_zcdp",
    "slope",
    "subsample_and_aggregate",
]
