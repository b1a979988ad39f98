"""The team's size rule for functions: under about 60 code lines (docs/architecture.md,
Conventions: "Readable sizes").

A function's code lines are the lines from its ``def`` to its last line that hold code: blank
lines, comment-only lines and docstrings (its own and those of the functions and classes it
defines) do not count. Every function and method of ``dpcore/``, ``pages/``, ``app.py`` and
``benchmarks/`` is measured, nested ones on their own as well as inside their parent.

``ALLOWED`` names the long functions of files other developers are changing at the time this
check was added; whoever splits one removes its entry (``test_allowed_entries_are_still_long``
fails on an entry that has become short or no longer exists, so the list stays honest).
"""

from __future__ import annotations

import ast
import functools
import io
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 60
#: What is measured: every Python file under these folders, and these files.
SOURCES = ("dpcore", "pages", "benchmarks", "app.py")

#: Long functions in files being changed by other developers when this check was written
#: ("path::qualified name"); remove an entry when its function is split.
ALLOWED = frozenset(
    {
        "benchmarks/classroom.py::main",
        "dpcore/estimators/winsorized.py::_pmwm",
        "dpcore/estimators/winsorized.py::noisy_winsorized_mean",
    }
)

_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
    tokenize.ENCODING,
}
_Def = ast.FunctionDef | ast.AsyncFunctionDef


def _files() -> list[Path]:
    out: list[Path] = []
    for name in SOURCES:
        path = ROOT / name
        out += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return out


def _code_lines(source: str, tree: ast.Module) -> set[int]:
    """Line numbers holding a token of code, docstrings left out."""
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in _NOT_CODE:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | _Def) and ast.get_docstring(node):
            doc = node.body[0]
            lines.difference_update(range(doc.lineno, (doc.end_lineno or doc.lineno) + 1))
    return lines


def _functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, _Def]]:
    """Every function of ``tree`` with its qualified name (``Class.method``, ``outer.inner``)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, _Def):
            yield prefix + node.name, node
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def function_lengths(path: Path, root: Path = ROOT) -> dict[str, int]:
    """Code lines of every function in ``path``, keyed ``"<path from root>::<qualname>"``."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    code = _code_lines(source, tree)
    rel = path.relative_to(root).as_posix()
    return {
        f"{rel}::{name}": sum(1 for n in range(node.lineno, node.end_lineno + 1) if n in code)
        for name, node in _functions(tree)
        if node.end_lineno is not None
    }


@functools.cache
def _all_lengths() -> dict[str, int]:
    out: dict[str, int] = {}
    for path in _files():
        out.update(function_lengths(path))
    return out


def test_functions_are_under_sixty_code_lines() -> None:
    long = {k: n for k, n in _all_lengths().items() if n > LIMIT and k not in ALLOWED}
    listing = "\n".join(f"  {k}: {n}" for k, n in sorted(long.items()))
    assert not long, f"functions over {LIMIT} code lines (split them into named stages):\n{listing}"


def test_allowed_entries_are_still_long() -> None:
    lengths = _all_lengths()
    stale = sorted(k for k in ALLOWED if lengths.get(k, 0) <= LIMIT)
    assert not stale, f"remove these from ALLOWED (split or gone): {stale}"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("def f():\n    x = 1\n    return x\n", 3),
        ('def f():\n    """Doc\n    more."""\n\n    # note\n    return (\n        1\n    )\n', 4),
        ("def f():\n    def g():\n        '''doc'''\n        return 1\n    return g\n", 4),
    ],
)
def test_code_lines_are_counted_without_docstrings_comments_and_blanks(
    tmp_path: Path, body: str, expected: int
) -> None:
    path = tmp_path / "probe.py"
    path.write_text(body)
    assert function_lengths(path, tmp_path)["probe.py::f"] == expected
