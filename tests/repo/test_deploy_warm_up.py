"""The deployment compiles numba's kernels before it serves (deploy/README.md, "Before serving:
the compiled kernels").

- deploy/Dockerfile runs ``python -m dpcore.warm`` at build time and, at start-up, before
  ``streamlit run``; ``benchmarks/replicas.py`` runs it before starting its replicas;
- the command runs: it compiles every kernel of dpcore (``dpcore/_kernels.py`` and the other
  kernel modules: PMWM's, PLAN's medians, the rotation, the binary sampler and PureDPPDE's
  gather) into numba's cache and exits 0;
- :func:`dpcore._kernels.warm_up` compiles the argument types the estimators pass, so a large
  PLAN or IOME run after it compiles nothing more.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dpcore import _kernels as K
from dpcore.estimators.iome import iome_paper
from dpcore.estimators.plan import plan_l2

ROOT = Path(__file__).resolve().parents[2]
WARM_UP = "python -m dpcore.warm"
#: every compiled kernel of dpcore outside dpcore._kernels, as numba names its cache files
OTHER_KERNELS = {
    "_compiled.cumulative_pick",
    "_kernels_pmwm.column_extremes",
    "_kernels_pmwm.grid_hist",
    "_kernels_pmwm.winsorise",
    "_kernels_quantile.envelope_draws",
    "_kernels_quantile.half_squared_columns",
    "_kernels_quantile.window_split",
    "_kernels_rotation._first_pass",
    "_kernels_rotation._hadamard",
    "_kernels_rotation._load",
    "_kernels_rotation._radix2",
    "_kernels_rotation._radix4",
    "_kernels_rotation._rows",
    "_kernels_rotation._store",
    "binary_rows._merge_block",
    "kernels._gather_indices",
}
#: every compiled kernel of dpcore._kernels (a plain function wrapped by ``_compiled``)
KERNELS = sorted(
    name for name, f in vars(K).items() if hasattr(f, "py_func") and not name.startswith("_")
)


def _dockerfile_lines(keyword: str) -> list[str]:
    text = (ROOT / "deploy" / "Dockerfile").read_text()
    return [line for line in text.splitlines() if line.startswith(keyword + " ")]


def test_the_image_warms_the_kernels_at_build_and_before_serving() -> None:
    assert any(WARM_UP in line for line in _dockerfile_lines("RUN"))
    (cmd,) = _dockerfile_lines("CMD")
    shell = json.loads(cmd.removeprefix("CMD "))[-1]
    assert WARM_UP in shell and "streamlit run app.py" in shell
    assert shell.index(WARM_UP) < shell.index("streamlit run")


def test_the_replica_benchmark_warms_before_starting_replicas() -> None:
    text = (ROOT / "benchmarks" / "replicas.py").read_text()
    main = text[text.index("def main(") :]
    assert "warm_kernels()" in main
    assert main.index("warm_kernels()") < main.index("start_replica(")


def test_the_warm_up_command_fills_the_cache(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "dpcore.warm"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert "every kernel ready" in out.stdout
    indexes = {p.name.split("-")[0] for p in tmp_path.rglob("*.nbi")}
    assert indexes == {f"_kernels.{name}" for name in KERNELS} | OTHER_KERNELS


def test_every_compiled_kernel_of_dpcore_is_named_here() -> None:
    """A new kernel must join the warm-up: every function decorated ``@..._compiled`` outside
    dpcore/_kernels.py is listed above (the rotation's, compiled inside ``_compile``, are checked
    by the cache test)."""
    found = set()
    for path in (ROOT / "dpcore").rglob("*.py"):
        if path.name == "_kernels.py":
            continue
        text = path.read_text()
        for line, nxt in zip(text.splitlines(), text.splitlines()[1:], strict=False):
            if (
                line.lstrip().startswith("@")
                and "compiled" in line
                and nxt.lstrip().startswith("def ")
            ):
                found.add(f"{path.stem}.{nxt.split('def ')[1].split('(')[0]}")
    assert found <= OTHER_KERNELS, found - OTHER_KERNELS


def _signatures() -> dict[str, list]:
    """The argument types each compiled kernel holds (empty before its first call)."""
    out: dict[str, list] = {}
    for name in KERNELS:
        cells = [c.cell_contents for c in getattr(K, name).__closure__ or ()]
        jitted = next(c for c in cells if isinstance(c, list))
        out[name] = list(jitted[0].signatures) if jitted else []
    return out


def test_the_warm_up_names_every_kernel() -> None:
    assert sorted(K.warm_up()) == sorted(KERNELS)


def test_after_the_warm_up_the_estimators_compile_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    K.warm_up()
    warmed = _signatures()
    assert all(warmed.values())
    monkeypatch.setattr(K, "MIN_SIZE", 0)
    rng = np.random.default_rng(0)
    for n, d in [(400, 8), (301, 3)]:
        X = rng.standard_normal((n, d))
        bounds = (np.full(d, -50.0), np.full(d, 50.0))
        plan_l2(X, rho=0.5, bounds=bounds, rng=1)
        iome_paper(X, rho=0.5, bounds=bounds, rng=1)
    assert _signatures() == warmed
