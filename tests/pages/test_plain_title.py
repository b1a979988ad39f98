"""The title line written above a chart in presenter mode and on a phone (pages/_phone.py)."""

from __future__ import annotations

import pytest

from pages._phone import plain_title


@pytest.mark.parametrize(
    ("markup", "line"),
    [
        # Home's chart: the subtitle ran into the title ("... each method was 20 trials; ...")
        (
            "How far off each method was<br><sup>20 trials; lower is better</sup>",
            "How far off each method was · 20 trials; lower is better",
        ),
        ("A long title<br>wrapped for a phone", "A long title wrapped for a phone"),
        ("<b>Bold</b> title", "Bold title"),
        (None, ""),
    ],
)
def test_a_title_line_reads_as_one_sentence(markup, line) -> None:
    assert plain_title(markup) == line
