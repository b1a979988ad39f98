"""A cheap cost model: how long a run will take, predicted before it starts.

The app asks before any run predicted to take more than a few seconds. The model is linear in the
number of values an estimator touches: ``seconds = overhead + per_value * n * d`` per estimator
run, plus drawing the data, summed over every dataset, repetition, sweep point and estimator of an
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

from dpcore import limits

if TYPE_CHECKING:
    from dpcore.experiments.config import ExperimentConfig

#: Microseconds per value (n * d) for one run of each estimator; others use ``DEFAULT_PER_VALUE``.
PER_VALUE_US: dict[str, float] = {
    "empirical": 0.01,
    "plan": 0.35,
    "plan_oracle": 0.12,
    "plan_noscale": 0.15,
    "plan_l1": 0.06,
    "plan_l1_oracle": 0.06,
    "iome_paper": 0.25,
    "iome": 0.25,
    "gaussian_private": 0.17,
    "pmwm_zcdp": 0.9,
    "pmwm": 0.8,
    "binary_pde": 0.07,
    "binary_klsu_zcdp": 0.06,
    "binary_naive_laplace": 0.03,
    "simplex_laplace": 0.11,
    "plugin_laplace": 0.07,
}
DEFAULT_PER_VALUE_US = 0.2
#: Milliseconds of fixed cost per estimator run (private quantile searches, bookkeeping).
OVERHEAD_MS: dict[str, float] = {
    "pmwm_zcdp": 25.0,
    "pmwm": 35.0,
    "iome_paper": 9.0,
    "iome": 9.0,
    "gaussian_private": 6.0,
    "binary_pde": 5.0,
}
DEFAULT_OVERHEAD_MS = 2.0
#: One factor on the constants above. They were measured on a machine shared by several test runs
#: (load average 8-18 on 2 cores); the default Compare sweep, profiled alone, takes about 1.5 s of CPU
#: where the constants at factor 1 predict 7.6 s, so the factor is 0.25 (re-fit with
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
    the public ``params``: ``steps`` above the default scale the run
    (:func:`dpcore.limits.work_factor`) and add :data:`STEP_MS` a step.

    >>> seconds_per_run("iome_original", 200, 2, {"steps": 1000}) > 100 * seconds_per_run("iome_original", 200, 2)
    True
    """
    steps = (params or {}).get("steps")
    per_step = 0.0
    if isinstance(steps, int | float) and not isinstance(steps, bool):
        per_step = STEP_MS * 1e-3 * float(steps)
    return per_step + limits.work_factor(params) * CALIBRATION * (
        OVERHEAD_MS.get(name, DEFAULT_OVERHEAD_MS) * 1e-3
        + PER_VALUE_US.get(name, DEFAULT_PER_VALUE_US) * 1e-6 * n * d
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
