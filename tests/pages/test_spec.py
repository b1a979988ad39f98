"""pages/_spec.py: one PageSpec per page script, in the order the app shows them, each consistent
with its page (title, the sidebar settings it names, presenter steps). No app run: fast."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pages._spec import PAGES, PageSpec, page, tour
from pages._ui import GLOBAL_KEYS

ROOT = Path(__file__).resolve().parents[2]


def test_every_page_script_has_exactly_one_spec() -> None:
    scripts = {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py") if p.name[0] != "_"}
    paths = [p.path for p in PAGES]
    assert len(paths) == len(set(paths))
    assert set(paths) == scripts
    assert [p.path for p in PAGES if p.default] == ["pages/home.py"]
    assert len({p.title for p in PAGES}) == len(PAGES)


@pytest.mark.parametrize("spec", PAGES, ids=[p.url_path or "home" for p in PAGES])
def test_spec_matches_its_page(spec: PageSpec) -> None:
    source = (ROOT / spec.path).read_text(encoding="utf-8")
    titles = re.findall(r'^st\.title\("([^"]+)"\)', source, flags=re.M)
    assert titles == (["dpmean lab"] if spec.default else [spec.title])
    assert spec.icon.startswith(":material/") and spec.icon.endswith(":")
    assert spec.blurb and not spec.blurb[0].isupper()  # printed after "**title**: "
    assert set(spec.ignores) <= set(GLOBAL_KEYS)
    assert all(len(reason) > 40 for reason in spec.ignores.values())
    assert len(set(spec.steps)) == len(spec.steps)


def test_spec_is_read_only_and_looked_up_by_path() -> None:
    spec = page("pages/simplex.py")
    with pytest.raises(TypeError):
        spec.ignores["n"] = "no"  # type: ignore[index]
    with pytest.raises(KeyError, match="nope"):
        page("pages/nope.py")


def test_tour_is_numbered_in_display_order() -> None:
    labels = [label for _, label in tour()]
    assert labels[0] == "1. Privacy budget"
    assert [int(label.split(".")[0]) for label in labels] == list(range(1, len(labels) + 1))
    order = [p.path for p in PAGES]
    assert [order.index(s.path) for s, _ in tour()] == sorted(
        order.index(s.path) for s, _ in tour()
    )
