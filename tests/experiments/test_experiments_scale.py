"""Sweeps that scale out: a Dask LocalCluster and local processes give the serial frame (every
column but the wall-clock ``seconds``; floats to a relative 1e-9, since a Dask worker may run on
another CPU, whose kernels differ in the last bits)."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from dpcore.experiments import ExperimentConfig, run
from dpcore.experiments.__main__ import dask_executor

pytest.importorskip("distributed")

CFG = ExperimentConfig(
    name="scale",
    n=400,
    d=4,
    estimators=["empirical", "gaussian_private", "plan", "pmwm_zcdp"],
    sweep={"budget": [0.5, 1.0]},
    repetitions=3,
    seed=11,
)


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(
        a.drop(columns="seconds"), b.drop(columns="seconds"), rtol=1e-9, atol=0.0
    )


@pytest.mark.slow
def test_two_worker_local_cluster_gives_the_serial_frame() -> None:
    serial = run(CFG)
    seen = []
    with dask_executor("local", workers=2) as ex:  # processes=True: real worker processes
        frame = run(CFG, executor=ex, progress=lambda done, total: seen.append((done, total)))
    _same(frame, serial)
    assert seen[-1] == (len(seen), len(seen)) and len(seen) == CFG.repetitions


@pytest.mark.slow
@pytest.mark.parametrize(
    "how", [["--workers", "2"], ["--dask", "local", "--workers", "2"]], ids=["processes", "dask"]
)
def test_cli_scales_out_and_writes_the_serial_frame(tmp_path: Path, how: list[str]) -> None:
    path = tmp_path / "cfg.json"
    path.write_text(CFG.to_json())
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "dpcore.experiments",
            str(path),
            "--out",
            str(out),
            "--no-png",
            *how,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "task" in proc.stderr  # the progress bar
    serial = tmp_path / "serial.csv"
    run(CFG).to_csv(serial, index=False)
    _same(
        pd.read_csv(out / "results.csv", keep_default_na=False),
        pd.read_csv(serial, keep_default_na=False),
    )
