"""No page script holds a bare expression: Streamlit's "magic" draws it (a bare ``s.budget``
put the Budget class's st.help, a 31-row table in 14-px type, on Your data)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the scripts Streamlit runs with magic on: app.py and the pages (not the _helpers it imports)
SCRIPTS = [ROOT / "app.py", *sorted((ROOT / "pages").glob("[a-z]*.py"))]


def _drawn_by_magic(tree: ast.Module) -> list[int]:
    """Lines of expression statements magic would draw: not a call, not a docstring, not ``...``."""
    docstrings = {
        id(node.body[0])
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and id(node) not in docstrings
        and not isinstance(node.value, ast.Call | ast.Await | ast.Yield | ast.YieldFrom)
        and not (isinstance(node.value, ast.Constant) and node.value.value is Ellipsis)
    ]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_no_bare_expression_in_a_page_script(script):
    lines = _drawn_by_magic(ast.parse(script.read_text(encoding="utf-8")))
    assert not lines, f"{script.name}: bare expressions Streamlit would draw at lines {lines}"
