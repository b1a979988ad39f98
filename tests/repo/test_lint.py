"""The code base stays ruff clean and type checks (the same checks as `make lint`)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["dpcore", "pages", "tests", "benchmarks", "app.py"]


def _tool(name: str) -> str | None:
    return shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_clean():
    ruff = _tool("ruff")
    assert ruff, "ruff is part of the test extra: pip install -e '.[test]'"
    proc = _run(ruff, "check", *SOURCES)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_clean():
    ruff = _tool("ruff")
    assert ruff, "ruff is part of the test extra: pip install -e '.[test]'"
    proc = _run(ruff, "format", "--check", *SOURCES)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_clean():
    mypy = _tool("mypy")
    if mypy is None:
        pytest.skip(
            "mypy is not installed (it is part of the test extra: pip install -e '.[test]')"
        )
    proc = _run(mypy)  # dpcore, pages and app.py: files and settings in pyproject's [tool.mypy]
    assert proc.returncode == 0, proc.stdout + proc.stderr
