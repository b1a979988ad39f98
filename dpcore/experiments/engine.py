"""The experiment engine: a plain, serialisable config in, a tidy data frame of errors out.

An experiment is an :class:`ExperimentConfig` (JSON on disk): the data generator and its
parameters, the estimators and their parameters, one user budget and its unit, the sweep (over
``budget``, ``n``, ``d`` and/or ``skew``; several keys make a grid), the number of repetitions and
the seed. :func:`run` returns one row per (estimator, setting, repetition) with

* the error in every norm (``err_l1``, ``err_l2``, ``err_linf``; ``err_tv`` = ½ℓ1 for binary data),
* its split into sampling error, clipping bias and DP noise (``sampling_*``, ``clipping_*``,
  ``noise_*``; the identity of docs/estimators/plan.md §2, computed with :mod:`dpcore.metrics`),
* the budget in the user's unit, in the estimator's native unit (``native_budget``,
  ``native_unit``), the conversion rule applied (``conversion``) and the ledger total, and
* the time the estimator took (``seconds``).

Fair budgets
------------
One user budget (ε, (ε, δ) or ρ) is converted to each estimator's native notion by
:meth:`dpcore.privacy.Budget.to_native`; every conversion used is a valid implication, so each
estimator satisfies the user's guarantee (pure-DP estimators under a ρ budget run at
``ε = sqrt(2ρ)``, which implies ρ-zCDP). The rule is recorded in every row. Under a pure ε budget
(``unit="eps"``) zCDP estimators are skipped, with the reason in ``frame.attrs["skipped"]``: ε-DP
implies ε²/2-zCDP, but nothing turns a zCDP guarantee into ε-DP, so they cannot be run at "the same
budget" nor ranked with the ε-DP estimators (docs/architecture.md).

Randomness and reproducibility
------------------------------
Every random stream is a child of ``SeedSequence(config.seed)`` addressed by *content*, not by
position: the dataset of repetition ``r`` is the child ``(0, key(data setting), r)`` and the noise
of estimator ``e`` at setting ``s`` in repetition ``r`` is ``(1, key(e), key(s), r)``, where
``key`` is a CRC-32 of a canonical JSON string. ``SeedSequence(seed, spawn_key=path)`` is exactly
the stream that repeated :meth:`numpy.random.SeedSequence.spawn` reaches along ``path``. Hence

* the same config and seed give the identical frame (all columns but ``seconds``), whatever the
  executor, the number of workers or the order in which tasks finish;
* adding or removing an estimator, or a sweep value, leaves every other row unchanged;
* all estimators see the same datasets (common random numbers), and so do all budgets of a
  budget sweep: the curves compare estimators, not luck.

Repetitions are vectorised where an estimator allows it: with ``resample="noise"`` (one dataset
per setting, repetitions redraw only the privacy noise) the simplex-family estimators release all
repetitions in one vectorised call of their ``*_draws`` function; everything else (and every
estimator under the default ``resample="data"``, a fresh dataset per repetition as in the PLAN
paper's experiments) runs once per repetition on its own child stream. The error norms are
computed for all rows of a task at once.

Parallel runs
-------------
``executor=`` takes any :class:`concurrent.futures.Executor` (threads, processes, or a Dask /
Ray executor). A task is one (dataset, repetition): it generates the data once and runs every
estimator at every budget on it. A task carries the config itself and the budgets already
converted to each estimator's notion (once per estimator and setting, by :func:`plan_tasks`);
tasks and results are picklable; workers look the estimators up by name in the registry
(estimators registered only inside a notebook are not visible to a fresh worker process).

Command line
------------
``python -m dpcore.experiments CONFIG.json --out DIR`` writes ``results.csv``, ``config.json``
(the config actually used), ``summary.csv`` and the figures (HTML always; PNG when static export
works), with a tqdm progress bar. Shipped configs: ``dpcore/experiments/configs/*.json`` (:func:`shipped_configs`).

References
----------
Aumüller, Lebeda, Nelson, Pagh. "PLAN: Variance-Aware Private Mean Estimation." PETS 2024,
Section 7, Table 1 (docs/estimators/plan.md §7); error identity docs/estimators/plan.md §2.
NumPy SPEC 7 and :class:`numpy.random.SeedSequence` (child streams).
"""

from __future__ import annotations

import json
import math
import time
import zlib
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dpcore import registry
from dpcore.data.dataset import Dataset
from dpcore.data.synthetic import generate
from dpcore.experiments.config import COLUMNS, NATIVE_UNIT, NORMS, ExperimentConfig
from dpcore.experiments.summaries import FAILURE_MULTIPLE, private_rows
from dpcore.metrics import lp_error, tv_error
from dpcore.privacy import Budget, Conversion

_P = {"l1": 1.0, "l2": 2.0, "linf": np.inf}


def zcdp_skip_reason(spec: registry.EstimatorSpec, unit: str) -> str | None:
    """Why ``spec`` is not run under a budget in ``unit``, or ``None`` when it can meet it.

    A zCDP estimator cannot meet a pure ε budget: ε-DP implies ε²/2-zCDP, never the reverse.
    """
    if unit != "eps" or spec.notion != "zcdp":
        return None
    return (
        f"{spec.label} skipped: it is ρ-zCDP, and a pure ε budget cannot be met by a zCDP estimator "
        "(ε-DP implies ε²/2-zCDP, not the other way round). At ρ = ε²/2 it would give only (ε′, δ)-DP, "
        "not ε-DP; give the budget as (ε, δ) or ρ to compare it."
    )


# --------------------------------------------------------------------------------------------
# seeds


def _key(*parts: Any) -> int:
    """A stable 32-bit key of plain values (CRC-32 of canonical JSON)."""
    return zlib.crc32(json.dumps(parts, sort_keys=True, default=str).encode())


def child_seed(seed: int, *path: int) -> np.random.SeedSequence:
    """The child of ``SeedSequence(seed)`` along ``path``: identical to calling
    ``.spawn(path[0] + 1)[path[0]].spawn(path[1] + 1)[path[1]]...`` on the root."""
    return np.random.SeedSequence(int(seed), spawn_key=tuple(int(p) for p in path))


def _data_key(cfg: ExperimentConfig, n: int, d: int, skew: float) -> int:
    return _key("data", cfg.distribution, cfg.data_params, cfg.bounds, int(n), int(d), float(skew))


def _estimator_key(entry: Mapping[str, Any]) -> int:
    """The key of an estimator entry's noise streams (its id, name and parameters)."""
    return _key("estimator", entry["id"], entry["name"], entry["params"])


def _setting_key(s: Mapping[str, Any], cfg: ExperimentConfig) -> int:
    return _key(
        "setting",
        int(s["n"]),
        int(s["d"]),
        float(s["skew"]),
        float(s["budget"]),
        cfg.unit,
        cfg.delta if cfg.unit == "eps_delta" else None,
        cfg.conversion,
    )


def make_dataset(cfg: ExperimentConfig, n: int, d: int, skew: float, rep: int) -> Dataset:
    """The dataset of repetition ``rep`` at ``(n, d, skew)`` (the same one every estimator sees).

    With ``resample="noise"`` the repetition index is ignored (one dataset per setting).
    """
    r = 0 if cfg.resample == "noise" else int(rep)
    rng = np.random.default_rng(child_seed(cfg.seed, 0, _data_key(cfg, n, d, skew), r))
    ds = generate(cfg.distribution, int(n), int(d), float(skew), rng=rng, **cfg.data_params)
    if cfg.bounds is not None:
        ds = replace(ds, bounds=public_bounds(cfg.bounds, ds))
    return ds


def public_bounds(spec: Mapping[str, Any], ds: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """The public range of ``spec`` (see :class:`ExperimentConfig` ``bounds``) for dataset ``ds``.

    Only the dimension and the generator's *parameters* (its mean and σ profile) are used, never
    the sample, so the range is public.
    """
    h = float(spec["half_width"])
    scale = spec.get("scale", "1")
    if scale == "sqrt_d":
        h *= math.sqrt(ds.d)
    elif scale == "d_sqrt_max_sigma":
        h *= ds.d * math.sqrt(float(np.max(ds.true_std)))
    center = float(spec.get("center", ds.params.get("mean", float(np.mean(ds.true_mean)))))
    return np.full(ds.d, center - h), np.full(ds.d, center + h)


# --------------------------------------------------------------------------------------------
# vectorised repetitions (resample="noise")


# --------------------------------------------------------------------------------------------
# one task: one dataset, every estimator at every budget


def _errors(stack: np.ndarray, kind: str) -> dict[str, np.ndarray]:
    """Norms of the four error vectors ``stack[..., k, :]`` (total, sampling, clipping, noise)."""
    out: dict[str, np.ndarray] = {}
    zero = np.zeros(stack.shape[-1])
    for m, p in _P.items():
        out[m] = np.asarray(lp_error(stack, zero, p))
    out["tv"] = (
        np.asarray(tv_error(stack, zero)) if kind == "binary" else np.full(stack.shape[:-1], np.nan)
    )
    return out


def _run_task(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Run one (dataset, repetition) task; returns plain row dicts (picklable)."""
    cfg: ExperimentConfig = task["config"]
    conversions: Mapping[tuple[int, str], Conversion] = task["conversions"]
    n, d, skew = task["n"], task["d"], task["skew"]
    reps: list[int] = task["reps"]
    ds = make_dataset(cfg, n, d, skew, reps[0])
    xbar = ds.x.mean(axis=0)
    truth = xbar if cfg.truth == "empirical" else ds.true_mean
    rows: list[dict[str, Any]] = []
    vectors: list[np.ndarray] = []
    # each estimator's spec and stream key once per task, not once per budget
    estimators = [
        (order, entry, registry.get(entry["name"]), _estimator_key(entry))
        for order, entry in task["estimators"]
    ]
    for setting_idx, budget_value in task["budgets"]:
        budget = cfg.budget_at(budget_value)
        skey = _setting_key({"n": n, "d": d, "skew": skew, "budget": budget_value}, cfg)
        for order, entry, spec, ekey in estimators:
            conv = conversions[setting_idx, entry["id"]]
            base = _base_row(task, spec, entry, conv, ds.kind, setting_idx, budget_value, order)
            batched = spec.batched if cfg.resample == "noise" and len(reps) > 1 else None
            if batched is not None:
                rows_v = _run_batched(
                    spec, batched, entry, ds, budget, conv, cfg, ekey, skey, reps, xbar, truth
                )
                for row, vec in rows_v:
                    rows.append({**base, **row})
                    vectors.append(vec)
                continue
            for rep in reps:
                rng = np.random.default_rng(child_seed(cfg.seed, 1, ekey, skey, rep))
                row, vec = _run_one(spec, entry, ds, budget, conv, cfg, rng, xbar, truth)
                rows.append({**base, "rep": rep, **row})
                vectors.append(vec)
    if rows:
        _add_errors(rows, vectors, ds.kind)
    return rows


def _base_row(
    task: dict[str, Any],
    spec: registry.EstimatorSpec,
    entry: dict[str, Any],
    conv: Conversion,
    kind: str,
    setting_idx: int,
    budget_value: float,
    order: int,
) -> dict[str, Any]:
    """The columns every repetition of one estimator at one setting of ``task`` shares."""
    cfg: ExperimentConfig = task["config"]
    return {
        "estimator": entry["id"],
        "name": spec.name,
        "label": spec.label,
        "family": spec.family,
        "notion": spec.notion,
        "neighbouring": spec.neighbouring,
        "color": spec.color,
        "setting": setting_idx,
        "distribution": cfg.distribution,
        "kind": kind,
        "n": task["n"],
        "d": task["d"],
        "skew": task["skew"],
        "budget": budget_value,
        "unit": cfg.unit,
        "delta": cfg.delta if cfg.unit == "eps_delta" else np.nan,
        "native_budget": conv.value,
        "native_unit": NATIVE_UNIT[spec.notion],
        "conversion": conv.rule,
        "_order": order,
    }


def _add_errors(rows: list[dict[str, Any]], vectors: list[np.ndarray], kind: str) -> None:
    """Each row's error columns (total, sampling, clipping, noise in every norm) from its
    released vector; a failed run's are NaN but its sampling error."""
    errs = _errors(np.stack(vectors), kind)
    for i, row in enumerate(rows):
        for m in NORMS:
            for j, k in enumerate(("err", "sampling", "clipping", "noise")):
                row[f"{k}_{m}"] = float(errs[m][i, j])
        if row["failed"]:
            for m in NORMS:
                for k in ("err", "clipping", "noise"):
                    row[f"{k}_{m}"] = np.nan


def _run_one(
    spec: registry.EstimatorSpec,
    entry: dict[str, Any],
    ds: Dataset,
    budget: Budget,
    conv: Conversion,
    cfg: ExperimentConfig,
    rng: np.random.Generator,
    xbar: np.ndarray,
    truth: np.ndarray,
) -> tuple[dict[str, Any], np.ndarray]:
    d = ds.d
    t0 = time.perf_counter()
    try:
        est = spec.run(ds, budget, rng=rng, conversion=conv, **entry["params"])
        seconds = time.perf_counter() - t0
        mean = np.atleast_1d(np.asarray(est.mean, float)).reshape(d)
        noiseless = np.atleast_1d(np.asarray(est.diagnostics.noiseless_mean, float)).reshape(d)
        diag = est.diagnostics
        std = diag.noise_std
        row = {
            "ledger_total": est.ledger.total(),
            "fraction_clipped": diag.fraction_clipped,
            "noise_std_l2": float(np.linalg.norm(np.broadcast_to(np.asarray(std, float), (d,))))
            if std is not None
            else np.nan,
            "warnings": " | ".join(diag.warnings),
            "failed": "",
            "seconds": seconds,
        }
    except Exception as err:  # noqa: BLE001 - one estimator failing at one setting must not stop a sweep
        seconds = time.perf_counter() - t0
        mean = noiseless = np.full(d, np.nan)
        row = {
            "ledger_total": np.nan,
            "fraction_clipped": np.nan,
            "noise_std_l2": np.nan,
            "warnings": "",
            "failed": f"{type(err).__name__}: {err}",
            "seconds": seconds,
        }
    vec = np.stack([mean - truth, xbar - truth, noiseless - xbar, mean - noiseless])
    return row, vec


def _run_batched(
    spec: registry.EstimatorSpec,
    batched: Callable[..., np.ndarray],
    entry: dict[str, Any],
    ds: Dataset,
    budget: Budget,
    conv: Conversion,
    cfg: ExperimentConfig,
    ekey: int,
    skey: int,
    reps: list[int],
    xbar: np.ndarray,
    truth: np.ndarray,
) -> list[tuple[dict[str, Any], np.ndarray]]:
    """All repetitions of a vectorisable estimator on one dataset in one call."""
    rng = np.random.default_rng(child_seed(cfg.seed, 1, ekey, skey, 2**31))
    first, first_vec = _run_one(
        spec,
        entry,
        ds,
        budget,
        conv,
        cfg,
        np.random.default_rng(child_seed(cfg.seed, 1, ekey, skey, 0)),
        xbar,
        truth,
    )
    if first["failed"]:
        return [({**first, "rep": r}, np.full((4, ds.d), np.nan)) for r in reps]
    noiseless = xbar + first_vec[2]  # noiseless - xbar is the clipping row of the error stack
    kwargs = {**spec.params, **spec.check_overrides(entry["params"]), **conv.kwargs}
    if spec.accepts("bounds"):
        kwargs.setdefault("bounds", ds.bounds)
    t0 = time.perf_counter()
    means = np.asarray(batched(ds.x, reps=len(reps), rng=rng, **kwargs), float).reshape(
        len(reps), ds.d
    )
    seconds = (time.perf_counter() - t0) / len(reps)
    out = []
    for i, r in enumerate(reps):
        vec = np.stack([means[i] - truth, xbar - truth, noiseless - xbar, means[i] - noiseless])
        out.append(({**first, "rep": r, "seconds": seconds}, vec))
    return out


# --------------------------------------------------------------------------------------------
# run


def plan_tasks(cfg: ExperimentConfig) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The tasks of an experiment and the estimators skipped (id -> reason).

    A task carries the config itself and the conversions of its budgets, each computed once per
    (setting, estimator) here: ``task["conversions"][setting, id]`` is the setting's
    :class:`~dpcore.privacy.Budget` in that estimator's native notion.
    """
    entries = cfg.estimator_entries()
    specs = {e["id"]: registry.get(e["name"]) for e in entries}  # unknown names raise here
    settings = cfg.settings()
    groups: dict[tuple[int, int, float], list[tuple[int, float]]] = {}
    for i, s in enumerate(settings):
        groups.setdefault((s["n"], s["d"], s["skew"]), []).append((i, s["budget"]))
    skipped: dict[str, str] = {}
    tasks = []
    rep_groups = (
        [list(range(cfg.repetitions))]
        if cfg.resample == "noise"
        else [[r] for r in range(cfg.repetitions)]
    )
    for (n, d, skew), budgets in groups.items():
        ok = {s.name for s in registry.applicable(cfg.kind, d, peers=True)}
        use = []
        for order, e in enumerate(entries):
            why_not = zcdp_skip_reason(specs[e["id"]], cfg.unit)
            if why_not is not None:
                skipped[e["id"]] = why_not
            elif e["name"] in ok:
                use.append((order, e))
            else:
                spec = specs[e["id"]]
                why = (
                    f"applies to {', '.join(sorted(spec.data_kinds))} data"
                    if cfg.kind not in spec.data_kinds
                    else "applies to one-dimensional data only"
                )
                skipped[e["id"]] = (
                    f"{spec.label} skipped: it {why} (this is {cfg.kind} data, d = {d})."
                )
        if not use:
            continue
        conversions = {
            (i, e["id"]): cfg.budget_at(b).to_native(specs[e["id"]].notion, cfg.conversion)  # type: ignore[arg-type]
            for i, b in budgets
            for _, e in use
        }
        for reps in rep_groups:
            tasks.append(
                {
                    "config": cfg,
                    "conversions": conversions,
                    "n": n,
                    "d": d,
                    "skew": skew,
                    "budgets": budgets,
                    "estimators": use,
                    "reps": reps,
                }
            )
    return tasks, skipped


def _reusable(cfg: ExperimentConfig, reuse: pd.DataFrame | None) -> pd.DataFrame | None:
    """The rows of ``reuse`` that :func:`run` of ``cfg`` may take as they are: those of its
    repetitions below ``cfg.repetitions``, when ``reuse`` ran the same config but for the number of
    repetitions and some of each swept axis's values (a first result,
    :func:`dpcore.experiments.progressive.first_config`) and every repetition has a task of its
    own (``resample="data"``); else ``None``. Their ``setting`` is renumbered to ``cfg``'s index
    of their point."""
    if reuse is None or cfg.resample != "data":
        return None
    made, mine = dict(reuse.attrs.get("config") or {}), cfg.to_dict()
    sweep = made.get("sweep")
    if (
        not isinstance(sweep, dict)
        or set(sweep) != set(cfg.sweep)
        or any(not set(v) <= set(cfg.sweep[k]) for k, v in sweep.items())
        or {**made, "repetitions": cfg.repetitions, "sweep": mine["sweep"]} != mine
    ):
        return None
    index = {_point(s): i for i, s in enumerate(cfg.settings())}
    kept = reuse[reuse["rep"] < cfg.repetitions].reindex(columns=list(COLUMNS))
    points = [_point(r) for r in kept[["n", "d", "skew", "budget"]].to_dict("records")]
    if any(p not in index for p in points):
        return None
    return kept.assign(setting=[index[p] for p in points])


def _point(s: Mapping[str, Any]) -> tuple[int, int, float, float]:
    """A sweep point as plain values (a key shared by a config's settings and a frame's rows)."""
    return int(s["n"]), int(s["d"]), float(s["skew"]), float(s["budget"])


def _missing(tasks: list[dict[str, Any]], have: set[tuple[int, int]]) -> list[dict[str, Any]]:
    """``tasks`` cut to the budgets whose (setting, repetition) rows are not in ``have``; a task
    left with none is dropped. A task's rows do not depend on its other budgets (each run has its
    own stream), so a cut task gives the rows the whole one would."""
    out = []
    for task in tasks:
        budgets = [
            (i, b) for i, b in task["budgets"] if not all((i, r) in have for r in task["reps"])
        ]
        if budgets:
            out.append(
                task if len(budgets) == len(task["budgets"]) else {**task, "budgets": budgets}
            )
    return out


class FrameAttr(dict[str, Any]):
    """A dict for ``frame.attrs`` that pandas copies by reference: pandas deep-copies ``attrs`` into
    every frame and series it derives (each column access, each group), and the config's deep copy
    is a sixth of the Compare view's work. Treat it as read-only."""

    def __deepcopy__(self, memo: dict[int, Any]) -> FrameAttr:
        return self


def run(
    config: ExperimentConfig | Mapping[str, Any] | str | Path,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
    reuse: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Run an experiment; one row per (estimator, setting, repetition).

    Parameters
    ----------
    config : ExperimentConfig, dict, JSON string or path
        The experiment.
    executor : concurrent.futures.Executor, optional
        Runs the tasks (one per dataset and repetition); ``None`` runs them here, in order. The
        frame does not depend on it.
    progress : callable(done, total), optional
        Called after each finished task (for a progress bar).
    reuse : pandas.DataFrame, optional
        A frame this function returned for the same config with fewer repetitions, at all or some
        of the sweep's points (a first result): its runs are taken from it instead of being run
        again. They are the same rows (every stream is addressed by content, see "Randomness and
        reproducibility"), so the frame is identical but for the ``seconds`` of those rows.
        Ignored when its config differs in anything but ``repetitions`` and a subset of the swept
        values, and under ``resample="noise"`` (repetitions share a task).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`; rows ordered by estimator (config order), setting, repetition.
        ``frame.attrs`` holds ``config`` (the dict used) and ``skipped`` (estimator id -> reason
        for estimators that do not apply to the data). All columns but ``seconds`` are identical
        for the same config and seed.

    Examples
    --------
    >>> cfg = ExperimentConfig(n=500, d=4, estimators=["empirical", "gaussian_private"],
    ...                        sweep={"budget": [0.5, 1.0]}, repetitions=2)
    >>> frame = run(cfg)
    >>> frame.shape[0]
    8
    """
    cfg = ExperimentConfig.coerce(config)
    tasks, skipped = plan_tasks(cfg)
    kept = _reusable(cfg, reuse)
    if kept is not None:
        have = set(zip(kept["setting"].tolist(), kept["rep"].tolist(), strict=True))
        tasks = _missing(tasks, have)
    total = len(tasks)
    results: list[list[dict[str, Any]]] = []
    if executor is None:
        for i, task in enumerate(tasks):
            results.append(_run_task(task))
            if progress is not None:
                progress(i + 1, total)
    else:
        futures = [executor.submit(_run_task, task) for task in tasks]
        for i, fut in enumerate(as_completed(futures)):
            fut.result()
            if progress is not None:
                progress(i + 1, total)
        results = [f.result() for f in futures]
    rows = [r for chunk in results for r in chunk]
    frame = pd.DataFrame(rows)
    if frame.empty:
        frame = pd.DataFrame(columns=[*COLUMNS, "_order"])
    if kept is not None and not kept.empty:
        order = {e["id"]: i for i, e in enumerate(cfg.estimator_entries())}
        kept = kept.assign(_order=kept["estimator"].map(order))
        frame = kept if frame.empty else pd.concat([frame, kept], ignore_index=True)
    frame = frame.sort_values(["_order", "setting", "rep"], kind="stable").drop(columns="_order")
    frame = frame.reindex(columns=list(COLUMNS)).reset_index(drop=True)
    for col in ("setting", "n", "d", "rep"):
        frame[col] = frame[col].astype(int)
    frame.attrs["config"] = FrameAttr(cfg.to_dict())
    frame.attrs["skipped"] = FrameAttr(skipped)
    return frame


def tail_table(
    frame: pd.DataFrame, metric: str = "l2", factor: float = FAILURE_MULTIPLE
) -> pd.DataFrame:
    """Per private estimator: the typical error and how often a run lands far beyond it.

    For every point (setting) the median error of each estimator is its typical run; a run
    *fails* when its error exceeds ``factor`` times that median (a robust estimator
    degrades gracefully, so its worst run stays within 3x its median). Columns: ``label``,
    ``median`` (median over points of the per-point medians), ``failure_rate`` (share of runs
    beyond ``factor`` x their point's median), ``worst_ratio`` (largest max / median over points),
    ``runs``.
    """
    columns = ["estimator", "label", "median", "failure_rate", "worst_ratio", "runs"]
    errors = frame[f"err_{metric}"].to_numpy(dtype=float)
    # the rows' columns read through one mask (no filtered copy of the frame: this runs on every
    # Compare view, twice a refinement)
    keep = private_rows(frame) & (frame["failed"].to_numpy(object) == "") & np.isfinite(errors)
    if not keep.any():
        return pd.DataFrame(columns=columns)
    # numpy on the columns, equal to pandas' groupby medians to the last bit (tests/
    # test_summaries_fast.py keeps the pandas version as the reference)
    err = errors[keep]
    est, names = pd.factorize(frame["estimator"].array[keep])  # first appearance, as sort=False
    setting = pd.factorize(frame["setting"].to_numpy()[keep], use_na_sentinel=False)[0]
    point = pd.factorize(est * (int(setting.max()) + 1) + setting)[0]  # (estimator, setting)
    point_med, point_max, point_est = _group_median_max(point, err, est)
    fail = err > factor * point_med[point]
    ratio = np.where(point_med > 0, point_max / np.where(point_med > 0, point_med, 1.0), np.nan)
    runs = np.bincount(est, minlength=len(names))
    worst = np.full(len(names), -np.inf)
    np.fmax.at(worst, point_est, ratio)  # NaN (no positive median) is skipped, as pandas' max
    worst[worst == -np.inf] = np.nan
    codes, ids = pd.factorize(frame["estimator"].array)
    first_row = np.unique(codes, return_index=True)[1]  # each estimator's first row
    labels = dict(zip(ids, frame["label"].to_numpy(object)[first_row], strict=True))
    out = pd.DataFrame(
        {
            "estimator": names,
            "label": [labels[e] for e in names],
            "median": _group_median_max(point_est, point_med, point_est)[0],
            "failure_rate": np.bincount(est, weights=fail, minlength=len(names)) / runs,
            "worst_ratio": worst,
            "runs": runs.astype(np.int64),
        }
    )
    return out[columns]


def _group_median_max(
    group: np.ndarray, values: np.ndarray, owner: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group code 0..G-1 of ``group``: the median of ``values`` (the mean of the two middle
    values, ``(a + b) / 2``, as pandas computes it), the largest value, and ``owner`` at the
    group's first row."""
    order = np.lexsort((values, group))
    sorted_values, sorted_group = values[order], group[order]
    starts = np.flatnonzero(np.r_[True, sorted_group[1:] != sorted_group[:-1]])
    counts = np.diff(np.r_[starts, len(order)])
    low, high = sorted_values[starts + (counts - 1) // 2], sorted_values[starts + counts // 2]
    median = np.where(counts % 2 == 1, high, (low + high) / 2)
    return median, sorted_values[starts + counts - 1], owner[order][starts]
