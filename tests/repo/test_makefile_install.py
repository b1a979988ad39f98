"""The Makefile installs once: its install steps are file targets (``.venv/.installed``,
``.venv/.installed-load``) that depend on ``pyproject.toml``, so ``make test``, ``make run`` and
the load targets reinstall only on a fresh checkout or after ``pyproject.toml`` changed.

Checked with ``make -n`` (prints the commands, runs none) on a copy of the Makefile and
pyproject.toml in a temporary folder with a stand-in ``.venv``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="make is not installed")


def _dry_run(folder: Path, target: str) -> str:
    assert MAKE is not None
    out = subprocess.run(
        [MAKE, "-n", target], cwd=folder, capture_output=True, text=True, timeout=60, check=True
    )
    return out.stdout


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def _installed(folder: Path, *stamps: str) -> None:
    """Stand-in for a finished install: the stamps, newer than pyproject.toml."""
    (folder / ".venv" / "bin").mkdir(parents=True)
    later = (folder / "pyproject.toml").stat().st_mtime + 10
    for stamp in stamps:
        path = folder / ".venv" / stamp
        path.touch()
        os.utime(path, (later, later))


def test_a_fresh_checkout_installs(checkout: Path) -> None:
    assert "pip install --quiet -e '.[test," in _dry_run(checkout, "test")
    load = _dry_run(checkout, "load")
    assert "-e '.[test," in load and "-e '.[load]'" in load


@pytest.mark.parametrize("target", ["test", "run", "test-fast", "lint"])
def test_an_installed_checkout_does_not_reinstall(checkout: Path, target: str) -> None:
    _installed(checkout, ".installed")
    for _ in range(2):
        assert "pip install" not in _dry_run(checkout, target)


@pytest.mark.parametrize("target", ["load", "load-replicas", "memory", "deploy-test", "classroom"])
def test_the_load_targets_install_their_extra_once(checkout: Path, target: str) -> None:
    _installed(checkout, ".installed")
    assert "-e '.[load]'" in _dry_run(checkout, target)
    stamp = checkout / ".venv" / ".installed-load"
    later = (checkout / ".venv" / ".installed").stat().st_mtime + 10
    stamp.touch()
    os.utime(stamp, (later, later))
    for _ in range(2):
        assert "pip install" not in _dry_run(checkout, target)


def test_a_changed_pyproject_reinstalls(checkout: Path) -> None:
    _installed(checkout, ".installed", ".installed-load")
    later = (checkout / ".venv" / ".installed").stat().st_mtime + 10
    os.utime(checkout / "pyproject.toml", (later, later))
    assert "pip install --quiet -e '.[test," in _dry_run(checkout, "test")
    assert "-e '.[load]'" in _dry_run(checkout, "load")
