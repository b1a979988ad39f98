"""Speed of the experiment engine, as ratios against plain ``x.mean(axis=0)`` passes in the same run.

For each experiment: the wall time of ``dpcore.experiments.run(config)`` divided by the time of the
same number of ``x.mean(axis=0)`` passes (one per row of the frame, on an array of each row's
shape). A ratio of 100 means one private estimate, with its data generation and error split,
costs about 100 empirical means.

Usage: ``python benchmarks/compare_speed.py [--paper]`` (``--paper`` adds the PLAN paper's
Gaussian B sweep at d = 512, n = 10 000 with one repetition per point: 30 runs of 5M entries).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpcore.experiments import ExperimentConfig, run, shipped_configs


def mean_passes(frame, seed: int = 0) -> float:  # noqa: ANN001
    """Time one ``x.mean(axis=0)`` per row of ``frame`` on arrays of the rows' shapes."""
    rng = np.random.default_rng(seed)
    total = 0.0
    for (n, d), count in frame.groupby(["n", "d"]).size().items():
        x = rng.standard_normal((int(n), int(d)))
        t0 = time.perf_counter()
        for _ in range(int(count)):
            x.mean(axis=0)
        total += time.perf_counter() - t0
    return total


def measure(name: str, cfg: ExperimentConfig) -> None:
    t0 = time.perf_counter()
    frame = run(cfg)
    engine = time.perf_counter() - t0
    base = mean_passes(frame)
    per_est = frame.groupby("estimator")["seconds"].sum().sort_values(ascending=False)
    print(
        f"{name}: {len(frame)} runs in {engine:.2f} s; {len(frame)} mean passes {base * 1e3:.1f} ms; "
        f"ratio {engine / base:,.0f}x"
    )
    print(
        "  time inside each estimator (s): " + ", ".join(f"{k} {v:.2f}" for k, v in per_est.items())
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--paper", action="store_true", help="also run the paper-sized Gaussian B sweep"
    )
    args = parser.parse_args()
    measure("default comparison (5 budgets x 10 reps, n=2000, d=32)", ExperimentConfig())
    if args.paper:
        gb = shipped_configs()["gaussian_b"].to_dict()
        gb["repetitions"] = 1
        measure(
            "paper-sized Gaussian B (5 skews x 2 budgets x 1 rep, n=10000, d=512)",
            ExperimentConfig.from_dict(gb),
        )


if __name__ == "__main__":
    main()
