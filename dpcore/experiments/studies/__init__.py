"""Studies: the simulations behind the figures, one module per page family (mirroring
:mod:`dpcore.figures`), each seeded by the ``rng`` convention and returning a tidy frame or record.

- :mod:`~dpcore.experiments.studies.plan`: what the PLAN step-by-step pictures draw.
- :mod:`~dpcore.experiments.studies.gallery`: the Side by side runs and releases, the Home picture.
- :mod:`~dpcore.experiments.studies.winsorized`: contamination and subsample-and-aggregate.
- :mod:`~dpcore.experiments.studies.simplex`: the Free lunch (simplex) simulations and theory lines.
- :mod:`~dpcore.experiments.studies.binary_product`: total variation over ``n`` and ``d``.
- :mod:`~dpcore.experiments.studies.your_data`: runs on the user's data.

Every public name is importable from this package (``from dpcore.experiments.studies import X``).
"""

from dpcore.experiments.studies.binary_product import (
    EXACT_TV_MAX_D,
    MC_DRAWS,
    binary_single_run,
    product_tv,
    product_tv_many,
    simulate_tv,
)
from dpcore.experiments.studies.gallery import (
    ESTIMATORS,
    HOME_SETTING,
    Evidence,
    release_draws,
    run_gallery,
    why_plan_wins,
)
from dpcore.experiments.studies.plan import (
    baseline_runs,
    display_sample,
    plan_entry,
    plan_run,
    subsample,
)
from dpcore.experiments.studies.simplex import (
    KNOWN_N,
    LABELS,
    SIDE_INFORMATION,
    UNKNOWN_N,
    count_draws,
    sample_at,
    simplex_label,
    simplex_releases,
    simulated_points,
    variance_curves,
)
from dpcore.experiments.studies.winsorized import (
    Notion,
    Statistic,
    contaminate,
    contamination_sweep,
    full_statistic,
    sa_error_by_group_size,
)
from dpcore.experiments.studies.your_data import repeated_runs, run_estimator

__all__ = [
    "ESTIMATORS",
    "EXACT_TV_MAX_D",
    "HOME_SETTING",
    "KNOWN_N",
    "LABELS",
    "MC_DRAWS",
    "SIDE_INFORMATION",
    "UNKNOWN_N",
    "Evidence",
    "Notion",
    "Statistic",
    "baseline_runs",
    "binary_single_run",
    "contaminate",
    "contamination_sweep",
    "count_draws",
    "display_sample",
    "full_statistic",
    "plan_entry",
    "plan_run",
    "product_tv",
    "product_tv_many",
    "release_draws",
    "repeated_runs",
    "run_estimator",
    "run_gallery",
    "sa_error_by_group_size",
    "sample_at",
    "simplex_label",
    "simplex_releases",
    "simulate_tv",
    "simulated_points",
    "subsample",
    "variance_curves",
    "why_plan_wins",
]
