"""The pages' layer rule: a page renders a view, it does not compute.

- A page script (``pages/<page>.py``) imports only ``dpcore.views``, ``dpcore.figures``, the page
  helpers (``pages._*``), Streamlit, Plotly and the standard library: no numpy or pandas, no
  estimators, no experiments, and never another page script.
- A page helper (``pages/_*.py``) handles widgets and layout: it never imports an estimator's
  internals (``dpcore.estimators``) or a page script.
- ``app.py`` imports no page script either (it names them by path).
- A page script defines no cached function of its own: its view is cached on its settings record
  by ``pages/_views.py``.

Every ``import`` is found with ``ast``, inside functions too; references: ``docs/architecture.md``
(Data flow; Adding a page).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(p for p in (ROOT / "pages").glob("*.py") if not p.name.startswith("_"))
HELPERS = sorted(p for p in (ROOT / "pages").glob("_*.py") if p.name != "__init__.py")
PAGE_MODULES = {f"pages.{p.stem}" for p in PAGES}
#: what a page script may import besides the standard library
PAGE_ALLOWED = ("dpcore.views", "dpcore.figures", "pages._", "streamlit", "plotly")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    return out


def _stdlib(name: str) -> bool:
    return name.split(".")[0] in sys.stdlib_module_names or name == "__future__"


def _allowed_in_page(name: str) -> bool:
    return _stdlib(name) or name.startswith(PAGE_ALLOWED) or name in {"dpcore", "pages"}


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_a_page_imports_views_figures_and_page_helpers_only(path: Path) -> None:
    names = _imports(path)
    bad = sorted({n for n in names if not _allowed_in_page(n) and not _submodule_of_ok(n)})
    assert not bad, f"{path.name} imports {bad}: move that work into its dpcore view"
    other_pages = sorted(set(names) & (PAGE_MODULES - {f"pages.{path.stem}"}))
    assert not other_pages, f"{path.name} imports another page: {other_pages}"


def _submodule_of_ok(name: str) -> bool:
    """``from dpcore.views import compare`` names ``dpcore.views.compare``: fine."""
    head = name.rpartition(".")[0]
    return bool(head) and head.startswith(PAGE_ALLOWED)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_a_page_caches_nothing_of_its_own(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert "st.cache_data" not in text and "st.cache_resource" not in text, (
        f"{path.name} caches a function of its own: call its view through pages._views.cached"
    )


@pytest.mark.parametrize("path", [*HELPERS, ROOT / "app.py"], ids=lambda p: p.name)
def test_helpers_and_app_import_no_estimator_internals_and_no_page(path: Path) -> None:
    names = _imports(path)
    bad = sorted(
        {n for n in names if n.startswith("dpcore.estimators")} | (set(names) & PAGE_MODULES)
    )
    assert not bad, f"{path.name} imports {bad}"


def test_the_rule_has_power() -> None:
    """The old habits are caught: numpy in a page, an estimator's Diagnostics, another page."""
    assert not _allowed_in_page("numpy")
    assert not _allowed_in_page("pandas")
    assert not _allowed_in_page("dpcore.estimators.plan")
    assert not _allowed_in_page("dpcore.experiments")
    assert _allowed_in_page("dpcore.views.compare") and _allowed_in_page("pages._ui")


#: helpers that need NumPy or pandas at run time, and why: sizing cached values in bytes, and
#: styling a table's highlighted row (display only)
NUMERIC_HELPERS = {"_bytecache.py", "_tables.py"}


def _runtime_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for n in ast.walk(block)
    }
    out: list[str] = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append(node.module)
    return out


@pytest.mark.parametrize(
    "path", [p for p in HELPERS if p.name not in NUMERIC_HELPERS], ids=lambda p: p.name
)
def test_helpers_compute_nothing_with_numpy_or_pandas(path: Path) -> None:
    bad = sorted({n for n in _runtime_imports(path) if n.split(".")[0] in {"numpy", "pandas"}})
    assert not bad, f"{path.name} imports {bad} at run time: move that work into dpcore.views"
