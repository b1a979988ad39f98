"""The README's release example runs as written, and what it publishes is private."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _release_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("## A private release of your own data", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_release_example_runs_as_written():
    code = _release_example()
    out = io.StringIO()
    scope: dict[str, object] = {}
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - the README's own example
    r = scope["r"]
    printed = out.getvalue()
    assert "ε-differential privacy with ε = 0.5" in printed
    assert "sha256" not in printed.lower() and "fingerprint" not in printed
    assert r.record["n"] == 200 and len(r.record["input_fingerprint"]["hmac_sha256"]) == 64
