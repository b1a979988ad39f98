"""A cheap cost model: how long a run will take, predicted before it starts.

The app asks before any run predicted to take more than a few seconds. The model is linear in the
number of values an estimator touches: ``seconds = overhead + per_value * n * d`` per estimator
run (each registered estimator declares its :class:`~dpcore.estimate.Cost` as ``spec.cost``),
plus drawing the data, summed over every dataset, repetition, sweep point and estimator of an
experiment. The constants were measured on the development machine (2 shared cores) with
``benchmarks/cost_model.py``, which also prints predicted against measured times; rerun it to
recalibrate. Runs the engine batches over repetitions are cheaper than predicted, so the estimate
errs on the long side.

References
----------
docs/architecture.md, "App conventions" (interaction budget: a time estimate before a long run).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from dpcore import limits, registry

if TYPE_CHECKING:
    from dpcore.experiments.config import ExperimentConfig

#: One factor on the estimators' cost constants (``spec.cost``). They were measured on a machine
#: shared by several test runs (load average 8-18 on 2 cores); the default Compare sweep, profiled
#: alone, takes about 1.5 s of CPU where the constants at factor 1 predict 7.6 s, so the factor is 0.25 (re-fit with
#: benchmarks/cost_model.py on the machine that serves the app).
CALIBRATION = 0.25
#: Drawing one dataset, microseconds per value.
DATA_US = 0.08
#: Fixed cost of a PLAN step-by-step page view (figures), seconds.
PLAN_PAGE_FIGURES_S = 0.3


#: Milliseconds per step of an iterative estimator (``steps``: IOME's searches went at about
#: 0.6 ms a step at n = 200, d = 2, whatever the data's size).
STEP_MS = 0.6


def seconds_per_run(name: str, n: int, d: int, params: Mapping[str, Any] | None = None) -> float:
    """Predicted seconds for one run of estimator ``name`` on ``n`` rows and ``d`` columns with
    the public ``params``, from the estimator's declared ``spec.cost``: ``steps`` above the
    default scale the run (:func:`dpcore.limits.work_factor`) and add :data:`STEP_MS` a step.
    An unknown name is a ``ValueError`` (:func:`dpcore.registry.get`).

    >>> seconds_per_run("iome_original", 200, 2, {"steps": 1000}) > 100 * seconds_per_run("iome_original", 200, 2)
    True
    """
    steps = (params or {}).get("steps")
    per_step = 0.0
    if isinstance(steps, int | float) and not isinstance(steps, bool):
        per_step = STEP_MS * 1e-3 * float(steps)
    cost = registry.get(name).cost
    if cost is None:  # only an unregistered spec lacks one (register refuses it)
        raise ValueError(f"{name} has no cost entry; declare cost=Cost(...) on its spec.")
    return per_step + limits.work_factor(params) * CALIBRATION * (
        cost.overhead_ms * 1e-3 + cost.per_value_us * 1e-6 * n * d
    )


def estimate_seconds(config: Any) -> float:
    """Predicted wall-clock seconds of :func:`dpcore.experiments.engine.run` for ``config``.

    Parameters
    ----------
    config : ExperimentConfig, mapping or JSON string
        What :func:`dpcore.experiments.engine.run` accepts.

    Returns
    -------
    float
        Seconds, summed over datasets (drawing them), repetitions, sweep points and estimators.

    Examples
    --------
    >>> from dpcore.experiments import ExperimentConfig
    >>> cfg = ExperimentConfig(distribution="gaussian", n=1000, d=16, estimators=["plan"], repetitions=2)
    >>> 0 < estimate_seconds(cfg) < 1
    True
    """
    from dpcore.experiments.config import ExperimentConfig
    from dpcore.experiments.engine import plan_tasks

    if isinstance(config, str):
        cfg = ExperimentConfig.from_json(config)
    elif isinstance(config, Mapping):
        cfg = ExperimentConfig.from_dict(dict(config))
    else:
        cfg = config
    tasks, _ = plan_tasks(cfg)
    total = 0.0
    for t in tasks:
        n, d, reps, points = int(t["n"]), int(t["d"]), len(t["reps"]), len(t["budgets"])
        total += reps * CALIBRATION * DATA_US * 1e-6 * n * d
        total += (
            reps
            * points
            * sum(seconds_per_run(e["name"], n, d, e.get("params")) for _, e in t["estimators"])
        )
    return total


def seconds_plan_page(n: int, d: int) -> float:
    """Predicted seconds for the PLAN step-by-step page: data, PLAN, IOME, the Gaussian mechanism, figures."""
    return (
        DATA_US * 1e-6 * n * d
        + sum(seconds_per_run(e, n, d) for e in ("plan", "iome_paper", "gaussian_private"))
        + PLAN_PAGE_FIGURES_S
    )


def check_app_limits(cfg: ExperimentConfig) -> ExperimentConfig:
    """``cfg`` fitted to the interactive pages' caps, or a ``ValueError`` when it cannot fit.

    Repetitions above the page's cap (``APP_REPETITIONS[1]``, what its slider offers) are capped
    to it; a config with more than :data:`dpcore.limits.APP_TASKS` runs at those repetitions,
    with more than :data:`dpcore.limits.MAX_APP_CELLS` values per dataset at some sweep point, or
    predicted to run longer than :data:`dpcore.limits.MAX_APP_SECONDS`, is refused (such
    configs belong to ``python -m dpcore.experiments``).

    Returns
    -------
    ExperimentConfig
        ``cfg`` itself when it fits, else a copy with the repetitions capped.
    """
    hi = limits.APP_REPETITIONS[1]
    if cfg.repetitions > hi:
        cfg = replace(cfg, repetitions=hi)
    settings = cfg.settings()
    limits.check_tasks(len(settings), len(cfg.estimators), cfg.repetitions, limits.APP_TASKS)
    cells = max(s["n"] * s["d"] for s in settings)
    if cells > limits.MAX_APP_CELLS:
        raise ValueError(
            f"the config's largest dataset has n · d = {cells:,} values; the page's limit is "
            f"{limits.MAX_APP_CELLS:,} (run it with python -m dpcore.experiments)."
        )
    seconds = estimate_seconds(cfg)
    if seconds > limits.MAX_APP_SECONDS:
        raise ValueError(
            f"the config would run for about {seconds:,.0f} s (the cost model's estimate); the "
            f"page's limit is dpcore.limits.MAX_APP_SECONDS = {limits.MAX_APP_SECONDS:,.0f} s. "
            "Use fewer repetitions, sweep points, estimators or steps, or run it with "
            "python -m dpcore.experiments."
        )
    return cfg
