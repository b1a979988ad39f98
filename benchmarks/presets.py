"""Every Compare preset's claim at many seeds: ``make presets``.

``tests/experiments/test_presets.py`` checks each claim at two or three seeds in ``make test``; this runs each
preset with its own parameters (only the claim's contenders: an estimator's runs do not depend on
the others in the config) at seeds 0, 1, ..., ``--seeds`` - 1 (seed 0 is the sidebar's default,
the seed a preset opens at on Compare) and prints, per preset, how many seeds the claim holds at,
at how many its gap is inside the run-to-run spread (the sentence then says so), the worst and
median margin (``wins``) or spread (``tie``), and the sentence of the worst seed. Exit status 1 if
a claim fails at any seed.

``--first`` checks each claim on the first result Compare draws of the preset instead
(:func:`dpcore.experiments.progressive.first_config` with the preset's ``first_reps``), the
view a student sees before the background refinement; ``--reps R`` on ``R`` repetitions per point.
``--envelope-medians on|off`` (or ``DPMEAN_ENVELOPE_MEDIANS=1|0``) sets
:data:`dpcore.quantiles.exponential.ENVELOPE_MEDIANS` for this run only (the default: the
module's), so a claim can be checked with either of PLAN's median samplers.

Usage: ``python benchmarks/presets.py [--seeds 12] [--presets free_lunch heavy_tails] [--first]
[--envelope-medians on]``
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from dpcore.experiments import run
from dpcore.experiments.presets import PRESETS, check_claim
from dpcore.experiments.progressive import first_config as first_result
from dpcore.quantiles import exponential


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=12, help="seeds per preset (default 12)")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=list(PRESETS))
    parser.add_argument("--first", action="store_true", help="check the first results")
    parser.add_argument("--reps", type=int, help="repetitions per point (default: the preset's)")
    parser.add_argument(
        "--envelope-medians",
        choices=["on", "off"],
        default={"1": "on", "0": "off"}.get(os.environ.get("DPMEAN_ENVELOPE_MEDIANS", "")),
        help="PLAN's full-sort medians without a sort (on) or sorted (off); default: the module's",
    )
    args = parser.parse_args(argv)
    if args.envelope_medians is not None:
        exponential.ENVELOPE_MEDIANS = args.envelope_medians == "on"
    print(f"ENVELOPE_MEDIANS={exponential.ENVELOPE_MEDIANS}")
    print("| preset | claim | holds at | inside the spread at | worst | median | worst seed |")
    print("|---|---|---|---|---|---|---|")
    failed = False
    for key in args.presets:
        preset = PRESETS[key]
        claim = preset.claim
        results = []
        for seed in range(args.seeds):
            cfg = preset.experiment(seed=seed, estimators=list(claim.contenders))
            if args.first:
                cfg = first_result(cfg, preset.first_reps)
            if args.reps is not None:
                cfg = first_result(cfg, args.reps)
            results.append(
                (seed, check_claim(run(cfg), claim, metric=cfg.headline_metric, unit=cfg.unit))
            )
        if claim.kind == "wins":  # margin: runner-up / winner at the middle (larger is better)
            values = [r.margin for _, r in results]
            worst_seed, worst = min(results, key=lambda sr: sr[1].margin)
            what = f"{claim.winner} wins, margin ≥ {claim.margin:g}×"
            shown = worst.margin
        else:  # spread: max / min median at any point (smaller is better)
            values = [r.spread for _, r in results]
            worst_seed, worst = max(results, key=lambda sr: sr[1].spread)
            what = f"tie within {claim.tolerance:g}×"
            shown = worst.spread
        held = sum(r.holds for _, r in results)
        failed |= held < len(results)
        print(
            f"| {key} | {what} | {held} of {len(results)} | "
            f"{sum(r.close for _, r in results)} of {len(results)} | {shown:.2f}× | "
            f"{float(np.median(values)):.2f}× | {worst_seed}: {worst.sentence} |",
            flush=True,
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
