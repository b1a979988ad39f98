"""Predicted (dpcore.experiments.cost.estimate_seconds) against measured seconds of dpcore.experiments.run.

Run with ``.venv/bin/python -m benchmarks.cost_model`` (or as a script); prints one line per config
with the ratio measured / predicted. Use it to recalibrate the constants in ``dpcore/cost.py``.
"""

from __future__ import annotations

import time

from dpcore.experiments import ExperimentConfig, run
from dpcore.experiments.cost import estimate_seconds

MAIN = ["empirical", "plan", "iome_paper", "gaussian_private", "pmwm_zcdp"]
CONFIGS = [
    ExperimentConfig(
        distribution="gaussian",
        n=2000,
        d=32,
        estimators=MAIN,
        repetitions=4,
        sweep={"budget": [0.125, 0.5]},
    ),
    ExperimentConfig(
        distribution="gaussian",
        n=4000,
        d=128,
        estimators=MAIN[:4],
        repetitions=3,
        sweep={"budget": [0.0625, 0.25, 1.0]},
    ),
    ExperimentConfig(
        distribution="binary_plan",
        n=4000,
        d=256,
        skew=0.05,
        estimators=["empirical", "plan_l1", "binary_pde", "binary_naive_laplace"],
        repetitions=3,
        sweep={"budget": [0.25, 1.0]},
    ),
    ExperimentConfig(
        distribution="gaussian",
        n=20000,
        d=64,
        estimators=MAIN,
        repetitions=2,
        sweep={"n": [5000, 20000]},
    ),
]


def main() -> None:
    for cfg in CONFIGS:
        predicted = estimate_seconds(cfg)
        t0 = time.perf_counter()
        run(cfg)
        measured = time.perf_counter() - t0
        print(
            f"{cfg.distribution:12s} n={cfg.n:6d} d={cfg.d:4d} reps={cfg.repetitions} "
            f"predicted {predicted:6.2f} s, measured {measured:6.2f} s, ratio {measured / predicted:.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
