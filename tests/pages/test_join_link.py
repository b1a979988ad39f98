"""The join link phones open (pages/_follow.py): the lecturer's public address, never a loopback
one, and chart text a room can read (dpcore.figures.style.for_projector)."""

from __future__ import annotations

from urllib.parse import urlsplit

import plotly.graph_objects as go
import pytest

from dpcore.figures.style import PROJECTOR_AXIS_TITLE, PROJECTOR_TEXT, for_projector
from pages._follow import join_link, public_address

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@pytest.mark.parametrize(
    ("setting", "env", "browser", "lan", "base"),
    [
        ("", "", "http://10.1.2.3:8501/compare?room=X", None, "http://10.1.2.3:8501"),
        (
            "",
            "https://lab.example.org/dp",
            "http://127.0.0.1:8501/",
            None,
            "https://lab.example.org/dp",
        ),
        (
            "192.168.0.9:8501",
            "https://lab.example.org",
            "http://127.0.0.1:8501/",
            None,
            "http://192.168.0.9:8501",
        ),
        ("", "", "http://127.0.0.1:8731/compare", "192.168.1.20", "http://192.168.1.20:8731"),
        ("", "", "http://localhost:8501/", "10.0.0.7", "http://10.0.0.7:8501"),
        ("http://[::1]:8501", "", "http://10.1.2.3:8501/", "10.0.0.7", "http://10.0.0.7:8501"),
    ],
)
def test_the_join_link_uses_the_public_address(setting, env, browser, lan, base):
    got, note = public_address(setting, env, browser, lan)
    assert got == base
    link = join_link(got, "KQ7MXP4A")
    assert urlsplit(link).hostname not in LOOPBACK
    assert link == f"{base}/?room=KQ7MXP4A"
    assert ("cannot open" in note) == any(h in (setting or env or browser) for h in LOOPBACK)


@pytest.mark.parametrize(
    ("setting", "browser"),
    [("", "http://127.0.0.1:8501/"), ("ftp://x", "http://10.1.2.3:8501/"), ("http://:80", "")],
)
def test_no_address_phones_can_open_is_said_not_linked(setting, browser):
    base, note = public_address(setting, "", browser, None)
    assert base == "" and "DPMEAN_PUBLIC_URL" in note


def test_projector_text_is_never_below_the_projector_size():
    fig = go.Figure(go.Bar(x=[1], y=[2], text=["a"], textfont={"size": 9}))
    fig.update_layout(
        title="A title",
        font={"size": 11},
        legend={"font": {"size": 10}},
        annotations=[{"text": "note", "font": {"size": 12}}, {"text": "big", "font": {"size": 30}}],
    )
    fig.update_xaxes(title="x", tickfont={"size": 11})
    spec = fig.to_dict()
    out = for_projector(spec)
    lay = out["layout"]
    assert lay["font"]["size"] == PROJECTOR_TEXT and lay["legend"]["font"]["size"] == PROJECTOR_TEXT
    assert [a["font"]["size"] for a in lay["annotations"]] == [PROJECTOR_TEXT, 30]
    assert lay["xaxis"]["tickfont"]["size"] == PROJECTOR_TEXT
    assert lay["xaxis"]["title"]["font"]["size"] == PROJECTOR_AXIS_TITLE
    assert out["data"][0]["textfont"]["size"] == PROJECTOR_TEXT
    assert lay["title"]["text"] == ""  # written above the chart: no legend can reach it
    assert spec["layout"]["title"]["text"] == "A title"  # the figure itself is unchanged
    go.Figure(out)  # still a valid figure
