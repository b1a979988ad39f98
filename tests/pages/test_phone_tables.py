"""Tables on a phone (pages/_tables.py): a table whose words cannot sit side by side on a 375-px
screen becomes cards (each cell on its line after its header), narrower ones stay tables whose
lines break between words only; a link column shows its words; plain floats read as the grid
shows them. The browser check is tests/e2e/test_phone_fit_browser.py (no word broken across
lines)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pages._tables import (
    CELL_PX,
    CHAR_PX,
    PHONE_TABLE_PX,
    _link,
    _link_text,
    _plain_cell,
    needed_px,
    phone_markup,
)


def _wide() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Who": ["US Census Bureau"],
            "What was released": ['2020 "redistricting" data'],
            "Budget published": ["ρ = 2.56, read at δ = 1e-10"],
            "Protects": ["person, whole release"],
            "Source": ["Abowd et al., Harvard Data Science Review (2022)"],
            "Model (central or local)": ["central"],
        }
    )


def test_a_table_too_wide_for_a_phone_becomes_cards_with_each_header_before_its_cell():
    styled = _wide().style.hide(axis="index")
    assert needed_px(styled.to_html()) > PHONE_TABLE_PX
    markup = phone_markup(styled)
    assert 'class="dp-phone-table dp-cards"' in markup
    for k, header in enumerate(_wide().columns):
        assert f'td.col{k}::before {{ content: "{header}: "; }}' in markup
    assert markup.count("::before") == len(_wide().columns)


def test_a_narrow_table_stays_a_table_and_a_projector_never_gets_cards():
    narrow = pd.DataFrame({"estimator": ["PLAN", "IOME"], "error": [0.5, 0.25]}).style
    assert "dp-cards" not in phone_markup(narrow.hide(axis="index"))
    assert "::before" not in phone_markup(narrow.hide(axis="index"))
    wide = phone_markup(_wide().style.hide(axis="index"), size=24)
    assert "dp-cards" not in wide and 'style="font-size: 24px"' in wide


def test_needed_px_counts_the_longest_unbreakable_run_of_each_column_and_the_row_headings():
    t = pd.DataFrame({"a": ["Canonne–Kamath–Steinke", "x"]}, index=["calibration", "y"])
    # "Canonne–" (8) breaks after the dash; the row heading "calibration" (11) is a column too
    assert needed_px(t.style.to_html()) == round(8 * CHAR_PX + CELL_PX + 11 * CHAR_PX + CELL_PX, 6)


def test_a_header_with_a_quote_is_escaped_in_the_cards_rules():
    t = _wide().rename(columns={"Who": 'Who "really"'})
    assert 'content: "Who \\"really\\": "' in phone_markup(t.style.hide(axis="index"))


def test_a_link_column_shows_its_words_and_plain_floats_read_as_the_grid_shows_them():
    cfg = st.column_config.LinkColumn("side by side", display_text="open")
    assert _link_text(cfg) == "open"
    assert _link_text(st.column_config.TextColumn("x")) is None and _link_text("label") is None
    assert _link("side_by_side?n=2000&d=32", "open") == (
        '<a href="side_by_side?n=2000&amp;d=32" target="_blank">open</a>'
    )
    assert _link(None, "open") == "" and _link("", "open") == ""
    assert [_plain_cell(v) for v in (16.0, 0.0, 0.1234567, 3, "a")] == [
        "16",
        "0",
        "0.123457",
        3,
        "a",
    ]
