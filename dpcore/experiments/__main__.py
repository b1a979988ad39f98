"""The command line ``python -m dpcore.experiments``: run a config (here, on local processes or on
a Dask cluster: ``dask_executor``) and write its results, summaries and figures (``write_outputs``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import Executor
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from dpcore.experiments.config import SWEEPABLE, ExperimentConfig, shipped_configs
from dpcore.experiments.engine import plan_tasks, run
from dpcore.experiments.summaries import regret_table, summarise
from dpcore.export import to_csv
from dpcore.pool import plain_main


def write_outputs(
    frame: pd.DataFrame, cfg: ExperimentConfig, out: Path, images: bool = True
) -> list[Path]:
    """Write the CSV, the config, the summary and the figures (HTML; PNG when ``images`` and
    :func:`dpcore.export.static_export_problem` finds kaleido and a Chromium)."""
    from dpcore import export
    from dpcore.figures import compare as fc

    out.mkdir(parents=True, exist_ok=True)
    written = []
    p = out / "results.csv"
    to_csv(frame, p)
    written.append(p)
    p = out / "config.json"
    p.write_text(cfg.to_json() + "\n", encoding="utf-8")
    written.append(p)
    metric = cfg.headline_metric
    p = out / "summary.csv"
    to_csv(summarise(frame, metric), p)
    written.append(p)
    p = out / "regret.csv"
    to_csv(regret_table(frame, metric), p)
    written.append(p)
    axes = [k for k in SWEEPABLE if len(cfg.sweep.get(k, [])) > 1] or [cfg.x_axis()]
    figs = {
        f"error_vs_{x}": fc.error_figure(frame, x=x, metric=metric, config=cfg)[0] for x in axes
    }
    figs["regret"] = fc.regret_figure(regret_table(frame, metric))
    images = images and export.static_export_problem() is None
    with export.session() if images else nullcontext():
        written += _write_figures(figs, out, images)
    return written


def _write_figures(figs: Mapping[str, Any], out: Path, images: bool) -> list[Path]:
    from dpcore import export

    written = []
    for stem, fig in figs.items():
        p = out / f"{stem}.html"
        fig.write_html(p, include_plotlyjs="cdn")
        written.append(p)
        if images:
            png = out / f"{stem}.png"
            png.write_bytes(export.to_image(fig, "png"))
            written.append(png)
    return written


@contextmanager
def dask_executor(address: str, workers: int = 2) -> Iterator[Executor]:
    """A :class:`concurrent.futures.Executor` on a Dask cluster, for :func:`run`'s ``executor=``.

    Parameters
    ----------
    address : str
        The scheduler's address (``tcp://host:8786``), or ``"local"`` to start a
        ``LocalCluster`` of ``workers`` single-threaded processes here (closed on exit).
    workers : int
        Worker processes for ``"local"``.

    The frame does not depend on the executor (every task seeds itself from the config), so a
    cluster run equals a serial one bit for bit except the ``seconds`` column.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError as err:
        raise ImportError(
            "--dask needs the distributed package: pip install -e '.[scale]'"
        ) from err
    if address == "local":
        with plain_main():  # worker processes must not re-run an app script that is __main__ here
            cluster = LocalCluster(
                n_workers=max(int(workers), 1),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                # no dashboard; its HTTP server (/health, /metrics) on a free port, not 8787
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            )
        with cluster, Client(cluster) as client:
            yield client.get_executor()
    else:
        with Client(address, timeout="10s") as client:
            yield client.get_executor()


def main(argv: Iterable[str] | None = None) -> int:
    """``python -m dpcore.experiments CONFIG.json --out DIR``.

    Exit status: 0 when every run succeeded, 1 when some run failed (its row says why), 2 when the
    config or the options were refused before anything ran.
    """
    args = _parser().parse_args(list(argv) if argv is not None else None)
    try:
        cfg = _config(args)
        n_tasks = len(plan_tasks(cfg)[0])
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)  # before the run: a bad --out fails at once
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        frame = _run_with_bar(cfg, args, n_tasks)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for reason in frame.attrs.get("skipped", {}).values():
        print(reason, file=sys.stderr)
    try:
        for p in write_outputs(frame, cfg, out, images=not args.no_png):
            print(p)
    except OSError as err:
        print(f"error: cannot write the results to {str(out)!r}: {err}", file=sys.stderr)
        return 2
    return _failures(frame)


def _parser() -> argparse.ArgumentParser:
    """The command line's options."""
    parser = argparse.ArgumentParser(
        prog="python -m dpcore.experiments",
        description="Run a dpcore experiment config and write its results and figures.",
    )
    parser.add_argument(
        "config",
        help="experiment config (JSON), or the name of a shipped config: "
        + ", ".join(shipped_configs()),
    )
    parser.add_argument("--out", required=True, help="output folder (created if missing)")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="local processes to use (default 1: run here); with --dask local, the workers",
    )
    parser.add_argument(
        "--dask",
        metavar="ADDRESS",
        default=None,
        help="run the tasks on the Dask cluster at ADDRESS (e.g. tcp://10.0.0.5:8786), or "
        "'local' to start a LocalCluster of --workers processes (needs pip install -e '.[scale]')",
    )
    parser.add_argument(
        "--repetitions", type=int, default=None, help="override the config's repetitions"
    )
    parser.add_argument(
        "--no-png", action="store_true", help="skip the PNG figures (HTML only; faster)"
    )
    return parser


def _config(args: argparse.Namespace) -> ExperimentConfig:
    """The config named or given by path, with ``--repetitions`` applied (``ValueError`` or
    ``OSError`` when refused)."""
    path = Path(args.config)
    if not path.exists() and args.config in shipped_configs():
        cfg = shipped_configs()[args.config]
    else:
        cfg = ExperimentConfig.load(path)
    if args.repetitions is not None:
        cfg = replace(cfg, repetitions=args.repetitions)
        cfg.validate()
    return cfg


def _run_with_bar(cfg: ExperimentConfig, args: argparse.Namespace, n_tasks: int) -> pd.DataFrame:
    """:func:`run` on the executor the options ask for, with a progress bar on stderr."""
    from tqdm import tqdm

    bar = tqdm(total=n_tasks, desc=cfg.name, unit="task")

    def tick(done: int, total: int) -> None:
        bar.update(done - bar.n)

    try:
        if args.dask:
            try:
                with dask_executor(args.dask, workers=args.workers) as ex:
                    return run(cfg, executor=ex, progress=tick)
            except (ImportError, OSError) as err:  # no distributed, or no scheduler there
                raise ValueError(str(err)) from err  # refused like a bad option (exit 2)
        if args.workers > 1:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(args.workers) as ex:
                return run(cfg, executor=ex, progress=tick)
        return run(cfg, progress=tick)
    finally:
        bar.close()


def _failures(frame: pd.DataFrame) -> int:
    """1 (and a count on stderr, with the first reasons) when any task failed, else 0: a run
    whose rows say MemoryError must not look like a success to a script."""
    failed = frame["failed"].astype(str) if "failed" in frame else None
    if failed is None or not (failed != "").any():
        return 0
    reasons = failed[failed != ""].value_counts()
    print(f"error: {int((failed != '').sum()):,} of {len(frame):,} runs failed:", file=sys.stderr)
    for reason, count in reasons.head(5).items():
        print(f"  {count:,} x {reason[:300]}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
