"""Studies of the Your data page: every chosen estimator run repeatedly on the user's columns, with
each column's error kept in that column's units, and what clipping alone does to each mean.

The errors are measured two ways, both teaching-only (an analyst making a real release sees
neither): against the raw mean of the data and against the mean of the data clipped to the bounds.
The difference between those two means is the clipping bias, the same for every estimator that
clips to the bounds; what is left is the estimator's noise (and its own extra clipping).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dpcore._validation import RngLike
from dpcore.data.dataset import Dataset
from dpcore.estimate import PEERS, Estimate, EstimatorSpec
from dpcore.estimators.private_bounds import run_with_private_bounds
from dpcore.experiments.summaries import guarantee_label
from dpcore.privacy import Budget
from dpcore.streams import Streams

#: Quantiles of the runs drawn as each estimator's spread.
SPREAD = (0.1, 0.9)


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


@dataclass(frozen=True)
class Runs:
    """Repeated runs of several estimators on one data set.

    Attributes
    ----------
    frame : DataFrame
        One row per (estimator, run, column): ``name``, ``estimator`` (label), ``color``,
        ``guarantee``, ``library`` (a peer library's mean), ``run``, ``column``, ``estimate``,
        ``error`` (against the raw mean), ``error_clipped`` (against the clipped mean), ``width``
        (the column's bounds).
    ledgers : dict
        Per estimator label, the ledger records of its first run.
    nonprivate : dict
        Per estimator label, its first run's non-private diagnostics (teaching only).
    refused : dict
        Per estimator label, why it could not run here (e.g. too few rows).
    """

    frame: pd.DataFrame
    ledgers: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    nonprivate: dict[str, str] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)


def clipped_mean(data: Dataset) -> np.ndarray:
    """The mean of the data clipped to its bounds (non-private, teaching only)."""
    lo, hi = (np.asarray(b, dtype=float) for b in data.bounds)
    return np.clip(np.asarray(data.x, dtype=float), lo, hi).mean(axis=0)


def clipping_frame(data: Dataset, columns: Sequence[str]) -> pd.DataFrame:
    """Per column, what clipping to the bounds alone does (non-private, teaching only).

    Returns a frame with ``column``, ``lower``, ``upper``, ``clipped_share`` (the share of values
    outside the bounds), ``raw_mean``, ``clipped_mean`` and ``shift`` (clipped minus raw: the
    clipping bias of an estimator that clips to these bounds).

    Examples
    --------
    >>> x = np.array([[1.0], [2.0], [3.0], [94.0]])
    >>> d = Dataset(x, x.mean(0), x.std(0), "real", (np.array([0.0]), np.array([10.0])))
    >>> clipping_frame(d, ["a"])[["clipped_share", "raw_mean", "clipped_mean", "shift"]].iloc[0].tolist()
    [0.25, 25.0, 4.0, -21.0]
    """
    x = np.asarray(data.x, dtype=float)
    lo, hi = (np.broadcast_to(np.asarray(b, dtype=float), (x.shape[1],)) for b in data.bounds)
    raw, clipped = x.mean(axis=0), clipped_mean(data)
    return pd.DataFrame(
        {
            "column": [str(c) for c in columns],
            "lower": lo,
            "upper": hi,
            "clipped_share": np.mean((x < lo) | (x > hi), axis=0),
            "raw_mean": raw,
            "clipped_mean": clipped,
            "shift": clipped - raw,
        }
    )


def repeated_runs(
    specs: Sequence[EstimatorSpec],
    data: Dataset,
    budget: Budget,
    reps: int,
    streams: Streams | int,
    *,
    columns: Sequence[str] | None = None,
    private_share: float | None = None,
    coarse_bounds: tuple | None = None,
    quantiles: tuple[float, float] = (0.01, 0.99),
) -> Runs:
    """``reps`` runs of each of ``specs`` on ``data`` with independent noise, each column's error
    in its own units. Estimator ``name``'s runs are the ``reps`` children of its own stream
    ``streams.seq("noise:<name>")`` (:mod:`dpcore.streams`; an integer is read as ``Streams(it)``),
    so its noise does not depend on which other estimators run beside it.

    An estimator that refuses the data (a ``ValueError``, e.g. too few rows) is listed in
    ``refused`` and leaves the others; any other exception propagates.
    """
    cols = [str(c) for c in (columns if columns is not None else range(data.d))]
    raw = np.asarray(data.x, dtype=float).mean(axis=0)
    clipped = clipped_mean(data)
    width = np.broadcast_to(np.asarray(data.bounds[1] - data.bounds[0], dtype=float), (data.d,))
    streams = streams if isinstance(streams, Streams) else Streams(streams)
    blocks, out = [], Runs(pd.DataFrame())
    for spec in specs:
        try:
            ests = [
                run_estimator(
                    spec,
                    data,
                    budget,
                    private_share=private_share,
                    coarse_bounds=coarse_bounds,
                    quantiles=quantiles,
                    rng=np.random.default_rng(child),
                )
                for child in streams.seq(f"noise:{spec.name}").spawn(reps)
            ]
        except ValueError as err:
            out.refused[spec.label] = str(err)
            continue
        out.ledgers[spec.label] = ests[0].ledger.to_records()
        out.nonprivate[spec.label] = "; ".join(
            f"{k} = {v}" for k, v in ests[0].diagnostics.nonprivate.items()
        )
        means = np.array([np.asarray(e.mean, dtype=float).reshape(-1) for e in ests])
        blocks.append(_block(spec, means, raw, clipped, width, cols))
    # one frame from the blocks' columns (a frame per estimator, then concat, cost a fifth of
    # the runs: each built its text columns apart)
    frame = (
        pd.DataFrame({k: np.concatenate([b[k] for b in blocks]) for k in blocks[0]})
        if blocks
        else pd.DataFrame()
    )
    return Runs(frame, out.ledgers, out.nonprivate, out.refused)


def _block(
    spec: EstimatorSpec,
    means: np.ndarray,
    raw: np.ndarray,
    clipped: np.ndarray,
    width: np.ndarray,
    cols: list[str],
) -> dict[str, np.ndarray]:
    """The columns of one estimator's rows: ``means`` is (runs, d)."""
    reps, d = means.shape
    rows = reps * d
    text = {
        "name": spec.name,
        "estimator": spec.label,
        "color": spec.color,
        "guarantee": guarantee_label(spec.notion, spec.neighbouring, spec.spend_factor),
    }
    return {k: np.full(rows, v, dtype=object) for k, v in text.items()} | {
        "library": np.full(rows, spec.family == PEERS),
        "run": np.repeat(np.arange(reps), d),
        "column": np.tile(np.array(cols, dtype=object), reps),
        "estimate": means.reshape(-1),
        "error": (means - raw).reshape(-1),
        "error_clipped": (means - clipped).reshape(-1),
        "width": np.tile(width, reps),
    }


def summary(frame: pd.DataFrame, column: str | None = None) -> pd.DataFrame:
    """Per estimator, the median and spread (:data:`SPREAD` quantiles) of its error over runs.

    ``column=None``: the error of a run is the root mean square over columns of
    ``|estimate - clipped mean| / width`` (a share of each column's range, so dollars, years and
    hours are never added). ``column``: the signed error ``estimate - raw mean`` of that column in
    its own units. ``rank`` orders the estimators (smaller is better): the median share of range,
    or the median ``|estimate - clipped mean|`` in the column.
    """
    if column is None:
        share = (frame["error_clipped"] / frame["width"]) ** 2
        per_run = share.groupby([frame["estimator"], frame["run"]], sort=False).mean() ** 0.5
        stat = per_run.rename("value").reset_index()
        stat["rank_value"] = stat["value"]
    else:
        part = frame[frame["column"] == str(column)]
        stat = part[["estimator", "run"]].assign(
            value=part["error"], rank_value=part["error_clipped"].abs()
        )
    g = stat.groupby("estimator", sort=False)
    out = pd.DataFrame(
        {
            "median": g["value"].median(),
            "low": g["value"].quantile(SPREAD[0]),
            "high": g["value"].quantile(SPREAD[1]),
            "rank": g["rank_value"].median(),
            "runs": g["run"].nunique(),
        }
    )
    meta = frame.drop_duplicates("estimator").set_index("estimator")
    out = out.join(meta[["name", "color", "guarantee", "library"]]).reset_index()
    return out.sort_values(["guarantee", "rank"], kind="stable").reset_index(drop=True)


def best_few(summary_frame: pd.DataFrame, few: int = 4) -> pd.DataFrame:
    """The ``few`` best estimators of each guarantee by ``rank``, and every library's mean."""
    ranked = summary_frame.sort_values("rank", kind="stable")
    top = ranked.groupby("guarantee", sort=False).head(few).index
    keep = summary_frame.index.isin(top) | summary_frame["library"].to_numpy(dtype=bool)
    return summary_frame[keep].reset_index(drop=True)


def data_spread(data: Dataset, column: int | None = None) -> float:
    """The data's own spread (non-private, teaching only): the standard deviation of ``column`` in
    its units, or (``None``) the root mean square over columns of each standard deviation as a
    share of the column's range. An estimate further than this from the clipped mean says nothing
    about the mean (typically: the bounds are wrong)."""
    x = np.asarray(data.x, dtype=float)
    if x.shape[0] < 2:
        return 0.0
    std = x.std(axis=0)
    if column is not None:
        return float(std[column])
    width = np.broadcast_to(np.asarray(data.bounds[1] - data.bounds[0], dtype=float), std.shape)
    return float(np.sqrt(np.mean((std / width) ** 2)))
