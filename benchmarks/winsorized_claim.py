"""Does the Winsorized mean page's claim hold on its first view, seed by seed?

The claim (docs/speed.md, "Winsorized mean"): at the page's defaults, PMWM (η) lies below the
clipped mean at every contamination level up to η, and at the slider's level (the sweep
sentence). The first view runs ``FIRST_SWEEP_REPS`` repetitions per level; this script runs the
view at seeds ``--first`` to ``--first + --seeds - 1`` with the first view's and the full counts
and prints, per seed, the largest ratio RMSE(PMWM (η)) / RMSE(clipped mean) over those levels
(the claim holds where it is below 1).

Run: ``PYTHONPATH=$PWD python benchmarks/winsorized_claim.py [--seeds 20] [--first 1000]``
"""

from __future__ import annotations

import argparse

import numpy as np

from dpcore.views import winsorized as W
from dpcore.views.settings import DataSettings


def worst_ratio(v: W.WinsorizedView) -> float:
    """max over levels <= eta of RMSE(PMWM (eta)) / RMSE(clipped mean)."""
    s, sweep = v.settings, v.sweep
    upto = sweep[sweep.contamination <= s.eta + 1e-12]
    pm = upto[upto.estimator == f"PMWM (η = {s.eta:g})"].set_index("contamination").rmse
    cm = upto[upto.estimator.str.startswith("clipped")].set_index("contamination").rmse
    return float((pm / cm).max())


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first", type=int, default=1000)
    args = ap.parse_args()
    print("| seed | first view: worst ratio | full counts: worst ratio |")
    print("|---|---|---|")
    worst = []
    for seed in range(args.first, args.first + args.seeds):
        data = DataSettings(seed=seed)
        first = W.view(W.WinsorizedSettings(data, sweep_reps=W.FIRST_SWEEP_REPS))
        full = W.view(W.WinsorizedSettings(data, sweep_reps=W.SWEEP_REPS))
        r1, r2 = worst_ratio(first), worst_ratio(full)
        worst.append((r1, seed))
        print(f"| {seed} | {r1:.3f} | {r2:.3f} |", flush=True)
    held = sum(r < 1 for r, _ in worst)
    r, seed = max(worst)
    print(
        f"\nclaim held on the first view at {held} of {len(worst)} seeds; worst seed {seed} "
        f"(ratio {r:.3f}); median ratio {np.median([r for r, _ in worst]):.3f}"
    )


if __name__ == "__main__":
    main()
