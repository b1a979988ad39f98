"""Experiments: configs, the seeded engine, summaries, studies (every simulation), and the command line ``python -m dpcore.experiments``."""

from dpcore.experiments.config import (
    COLUMNS,
    MAIN_ESTIMATORS,
    MAIN_PURE_ESTIMATORS,
    NATIVE_UNIT,
    NORMS,
    SWEEPABLE,
    UNIT_LABEL,
    ExperimentConfig,
    default_estimators,
    default_metric,
    shipped_configs,
)
from dpcore.experiments.engine import (
    child_seed,
    make_dataset,
    plan_tasks,
    public_bounds,
    run,
    tail_table,
    zcdp_skip_reason,
)
from dpcore.experiments.studies import (
    KNOWN_N,
    LABELS,
    Notion,
    Statistic,
    contamination_sweep,
    full_statistic,
    repeated_frame,
    run_estimator,
    sa_error_by_group_size,
    sample_at,
    simulate_tv,
    simulated_points,
)
from dpcore.experiments.summaries import (
    FAILURE_MULTIPLE,
    guarantee_label,
    needed_for_target,
    private_only,
    regret_table,
    summarise,
)

__all__ = ['COLUMNS', 'ExperimentConfig', 'FAILURE_MULTIPLE', 'KNOWN_N', 'LABELS', 'MAIN_ESTIMATORS', 'MAIN_PURE_ESTIMATORS', 'NATIVE_UNIT', 'NORMS', 'Notion', 'SWEEPABLE', 'Statistic', 'UNIT_LABEL', 'child_seed', 'contamination_sweep', 'default_estimators', 'default_metric', 'full_statistic', 'guarantee_label', 'make_dataset', 'needed_for_target', 'plan_tasks', 'private_only', 'public_bounds', 'regret_table', 'repeated_frame', 'run', 'run_estimator', 'sa_error_by_group_size', 'sample_at', 'shipped_configs', 'simulate_tv', 'simulated_points', 'summarise', 'tail_table', 'zcdp_skip_reason']
