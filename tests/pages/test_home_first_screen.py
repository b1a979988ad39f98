"""Home for a stakeholder: the page opens with one plain sentence (every number with a unit) and one
picture, then the plain box; the tour names every page of pages/_spec.py."""

from __future__ import annotations

import re
from collections.abc import Iterator

from streamlit.testing.v1.element_tree import Block, Element

from dpcore.views.home import HomeSettings, view
from pages._spec import PAGES
from tests.pages._apptest import open_page

#: the words that may follow a number in Home's first sentence
UNITS = {"people", "measurements", "trials", "data", "times", "runs", "rows", "columns", "%"}


def _leaves(node: Block | Element) -> Iterator[Element]:
    """The page's elements in the order they are drawn."""
    children = getattr(node, "children", None)
    if children is None:
        yield node  # type: ignore[misc]
        return
    for key in sorted(children):
        yield from _leaves(children[key])


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s", text.replace("**", ""), maxsplit=1)[0]


def test_first_sentence_gives_every_number_a_unit() -> None:
    lead = view(HomeSettings()).lead
    sentence = _first_sentence(lead)
    numbers = list(re.finditer(r"\d[\d,.]*\d|\d", sentence))
    assert numbers, sentence
    for m in numbers:
        after = sentence[m.end() :].lstrip()
        word = re.match(r"[%\w]+", after)
        assert word and word.group(0) in UNITS, (m.group(0), sentence)
    for jargon in ("ρ", "zCDP", "ℓ2", "σ", "n =", "d ="):
        assert jargon not in sentence, (jargon, sentence)


def test_home_opens_with_the_sentence_then_one_picture_then_the_box() -> None:
    at = open_page("pages/home.py", timeout=300, check=True)
    lead = view(HomeSettings()).lead
    drawn = [e for e in _leaves(at.main) if e.type in ("markdown", "plotly_chart", "title")]
    kinds = [e.type for e in drawn]
    start = kinds.index("title") + 1
    assert drawn[start].type == "markdown" and drawn[start].value == lead, drawn[start]
    assert drawn[start + 1].type == "plotly_chart", kinds[start : start + 3]
    assert drawn[start + 2].value == "**What this means for your organisation**", drawn[start + 2]


def test_tour_names_every_page() -> None:
    at = open_page("pages/home.py", timeout=300, check=True)
    links = [e.proto.label for e in _leaves(at.main) if e.type == "page_link"]
    others = [spec for spec in PAGES if not spec.default]  # every page but Home itself
    assert [s.title for s in others if not any(s.title in label for label in links)] == [], links
    captions = [c.value for c in at.caption]  # the blurbs wrap on a phone: text, not link labels
    assert [s.blurb for s in others if s.blurb not in captions] == []
