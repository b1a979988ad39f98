"""The documentation site builds in strict mode, and every link into it resolves.

``make docs`` builds ``docs/`` with MkDocs (``mkdocs.yml``); these tests build it once into a
temporary directory and check:

* the strict build succeeds (MkDocs turns every warning into an error: a broken link or anchor
  between pages, a missing page, a docstring mkdocstrings cannot render);
* every relative link in ``docs/*.md`` points at an existing file, and its ``#anchor`` at an
  element of the built page;
* every registered estimator is named on an estimator page;
* every section reference in the code (``specs/plan.md §3b`` or ``docs/estimators/plan.md#s3b``
  in ``dpcore/``, ``pages/``, ``app.py`` and ``tests/``) names an anchor of the estimator page it
  stands for (``docs/references.md`` explains the mapping).
"""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

#: How the code names the estimator pages (``specs/<key>.md``) -> the page under docs/estimators/.
SPEC_PAGES = {
    "plan": "plan",
    "winsorized": "winsorized",
    "winsorized-tables": "winsorized",
    "simplex": "simplex",
    "binary_product": "binary-product",
    "binary-product": "binary-product",
    "peers": "peers",
}
#: ``specs/winsorized-tables.md`` (no section) is the paper's tables: §6 of the winsorized page.
DEFAULT_ANCHOR = {"winsorized-tables": "s6"}

_REFERENCE = re.compile(
    r"(?:specs|docs/estimators)/(?P<key>[a-z_-]+)\.md"
    r"(?:\s*§(?P<section>\d+[a-z]?(?:\.\d+)*)|#(?P<anchor>[A-Za-z0-9_-]+))?"
)
_LINK = re.compile(r"\]\(([^)\s]+)\)")


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key == "id" and value:
                self.ids.add(value)


def _html_of(site: Path, page: Path) -> Path:
    """The built HTML of ``docs/<page>.md`` (MkDocs' directory URLs)."""
    rel = page.relative_to(DOCS).with_suffix("")
    if rel.name == "index":
        return site / rel.parent / "index.html"
    return site / rel / "index.html"


def _ids(site: Path, page: Path) -> set[str]:
    parser = _Ids()
    parser.feed(_html_of(site, page).read_text(encoding="utf-8"))
    return parser.ids


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip(
        "mkdocs", reason="MkDocs is not installed: pip install -e '.[docs]' to build the docs"
    )
    pytest.importorskip(
        "mkdocstrings", reason="mkdocstrings is not installed: pip install -e '.[docs]'"
    )
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(ROOT / "mkdocs.yml"),
            "-d",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stderr[-4000:]}"
    return out


def test_strict_build_makes_every_page(site: Path) -> None:
    pages = sorted(DOCS.rglob("*.md"))
    missing = [str(p.relative_to(DOCS)) for p in pages if not _html_of(site, p).is_file()]
    assert not missing, f"pages without HTML: {missing}"
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    unlisted = [str(p.relative_to(DOCS)) for p in pages if str(p.relative_to(DOCS)) not in nav]
    assert not unlisted, f"pages missing from mkdocs.yml's nav: {unlisted}"


def test_relative_links_resolve(site: Path) -> None:
    bad = []
    for page in sorted(DOCS.rglob("*.md")):
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in _LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.is_file():
                bad.append(f"{page.relative_to(DOCS)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in _ids(site, dest):
                bad.append(f"{page.relative_to(DOCS)}: {target} (no such anchor)")
    assert not bad, "\n".join(bad)


def _code_files() -> list[Path]:
    files = [ROOT / "app.py"]
    for folder in ("dpcore", "pages", "tests"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return [f for f in files if f.is_file() and f.name != "test_docs.py"]


def test_code_references_resolve(site: Path) -> None:
    ids: dict[str, set[str]] = {}
    bad, seen = [], 0
    for path in _code_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in _REFERENCE.finditer(text):
            key = m["key"]
            page = SPEC_PAGES.get(key)
            where = f"{path.relative_to(ROOT)}: {m[0]}"
            if page is None:
                bad.append(f"{where} (no estimator page for {key!r})")
                continue
            if page not in ids:
                ids[page] = _ids(site, DOCS / "estimators" / f"{page}.md")
            if m["section"]:
                anchor = "s" + m["section"].replace(".", "-")
            else:
                anchor = m["anchor"] or DEFAULT_ANCHOR.get(key)
            seen += 1
            if anchor and anchor not in ids[page]:
                bad.append(f"{where} (no anchor #{anchor} in docs/estimators/{page}.md)")
    assert seen > 0, "found no section references in the code (has their form changed?)"
    assert not bad, f"{len(bad)} references do not resolve:\n" + "\n".join(sorted(set(bad)))


def test_every_estimator_is_documented() -> None:
    """Each registered entry is named (in backticks) on an estimator page or the home page."""
    from dpcore import registry

    pages = [DOCS / "index.md", *sorted((DOCS / "estimators").glob("*.md"))]
    text = "\n".join(p.read_text(encoding="utf-8") for p in pages)
    missing = [s.name for s in registry.all_estimators() if f"`{s.name}`" not in text]
    assert not missing, f"registered but not documented under docs/estimators/: {missing}"
