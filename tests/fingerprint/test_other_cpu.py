"""The recorded numbers hold on another CPU: the fingerprint and notebook checks run again in a
child process whose NumPy dispatches none of its optional SIMD kernels (``NPY_DISABLE_CPU_FEATURES``,
its compiled baseline only) and whose OpenBLAS uses an older core's kernels (``OPENBLAS_CORETYPE``).

A machine with another processor picks other kernels, whose last bits differ; the checks compare
to a tolerance (``test_fingerprints.RTOL``) and must pass against the same recorded file there as
here. Before they did, 91 to 129 of the 729 fingerprints failed under such a setting.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ("tests/fingerprint/test_fingerprints.py", "tests/pages/test_notebooks.py")
#: an older OpenBLAS core type per architecture (its kernels without AVX or SVE)
OLDER_CORE = {"x86_64": "Nehalem", "amd64": "Nehalem", "aarch64": "ARMV8", "arm64": "ARMV8"}
SIMD_PROBE = "import numpy as np; print(' '.join(np.show_config(mode='dicts')['SIMD Extensions'].get('found', [])))"


def other_instruction_set() -> dict[str, str]:
    """The environment that makes NumPy and OpenBLAS run other kernels than they pick here."""
    simd = np.show_config(mode="dicts").get("SIMD Extensions", {})
    # the features this NumPy dispatches here, and any this process already runs without
    off = set(simd.get("found", [])) | set(os.environ.get("NPY_DISABLE_CPU_FEATURES", "").split())
    env = {"NPY_DISABLE_CPU_FEATURES": " ".join(sorted(off))}
    older = OLDER_CORE.get(platform.machine().lower())
    if older is not None:
        current = os.environ.get("OPENBLAS_CORETYPE", "")
        env["OPENBLAS_CORETYPE"] = older if current.lower() != older.lower() else "Prescott"
    return env


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DPMEAN_NOTEBOOKS"))}
    return {**env, **other_instruction_set()}


@pytest.mark.slow
def test_fingerprints_and_notebooks_hold_under_an_older_instruction_set() -> None:
    env = _child_env()
    probe = subprocess.run(
        [sys.executable, "-c", SIMD_PROBE], env=env, capture_output=True, text=True, check=True
    )
    assert probe.stdout.strip() == "", f"NumPy still dispatches {probe.stdout.strip()}"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:xdist", *CHECKS],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-500:]
    assert proc.returncode == 0, (
        f"under {other_instruction_set()}: {summary}\n{proc.stdout[-3000:]}"
    )
    assert " passed" in summary, summary
