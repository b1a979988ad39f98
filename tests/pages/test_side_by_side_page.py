"""The "Side by side" page under streamlit.testing: every default estimator's region and noise
shape from one run each, both views, the 100-releases button, and a link's estimator= parameter."""

import json
import re
from pathlib import Path
from urllib.parse import unquote

from streamlit.testing.v1 import AppTest

TIMEOUT = 180
APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "pages/side_by_side.py"


def _page(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    at.switch_page(PAGE)
    return at.run()


def _specs(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_default_page_shows_every_region_and_noise_shape_at_equal_aspect():
    at = _page({"n": "1000", "d": "8"})
    assert not at.exception
    assert at.title[0].value == "Side by side"
    names = at.multiselect(key="sbs_names").value
    assert "plan" in names and "iome_paper" in names and "gaussian_private" in names
    # adjacent coordinates and both rows: every clip region and every noise shape is a shape
    assert (at.number_input(key="sbs_i").value, at.number_input(key="sbs_j").value) == (1, 2)
    assert at.radio(key="sbs_zoom").value == "both"
    specs = _specs(at)
    parts, motions = specs[: len(names)], specs[len(names) :]
    assert len(motions) == 2  # the two animations (plotly frames with a play button)
    assert [len(sp.get("frames", [])) for sp in motions] == [4, 11]
    assert all(
        sp["layout"]["updatemenus"][0]["buttons"][0]["method"] == "animate" for sp in motions
    )
    # one figure per estimator (side by side; one under the other on a phone): its clip region
    # above its noise shape, each panel at equal aspect (a circle looks round)
    for spec in parts:
        layout = spec["layout"]
        assert sorted(k for k in layout if k.startswith("yaxis")) == ["yaxis", "yaxis2"]
        assert layout["yaxis"]["scaleanchor"] == "x" and layout["yaxis2"]["scaleanchor"] == "x2"
        assert layout["yaxis"]["domain"][0] > layout["yaxis2"]["domain"][1]
        assert layout["yaxis"]["title"]["text"].startswith("clip")
        assert layout["yaxis2"]["title"]["text"].startswith("noise")
        # the noise shape of each panel is drawn after (above) its release marker
        for axes in {(t.get("xaxis", "x"), t.get("yaxis", "y")) for t in spec["data"]}:
            here = [
                t["name"]
                for t in spec["data"]
                if (t.get("xaxis", "x"), t.get("yaxis", "y")) == axes
            ]
            for k, nm in enumerate(here):
                if nm.endswith("noise"):
                    assert any(m.endswith(": release") for m in here[:k]), here
    # one scale per row across the figures: areas compare by eye
    for axis in ("xaxis", "yaxis", "xaxis2", "yaxis2"):
        assert len({tuple(p["layout"][axis]["range"]) for p in parts}) == 1, axis
    titles = [p["layout"]["title"]["text"] for p in parts]
    assert len(set(titles)) == len(names) and all(titles), titles
    assert any("Clipping (top) and noise" in h.proto.body for h in at.get("html"))
    text = _text(at)
    assert "the area of" in text and "cannot rank" in text
    assert "lands closest" not in text  # one run does not rank estimators
    assert not re.search(r"\de[+-]\d", text), "a number in scientific notation"
    # overlay: one panel with a direct label per estimator
    at.radio(key="sbs_view").set_value("overlay").run()
    assert not at.exception
    spec = _specs(at)[0]
    labels = [a["text"] for a in spec["layout"].get("annotations", [])]
    assert len(labels) == len(names)


def test_pure_budget_uses_pure_estimators_and_noise_zoom_works():
    at = _page({"n": "1000", "d": "8", "unit": "eps", "budget_value": "1.0"})
    assert not at.exception
    assert "plan" not in at.multiselect(key="sbs_names").value
    at.radio(key="sbs_zoom").set_value("noise").run()
    names = at.multiselect(key="sbs_names").value
    assert not at.exception and len(_specs(at)) == len(names) + 2


def test_link_estimator_is_selected_and_draw_100_releases():
    at = _page({"n": "500", "d": "4", "estimator": "plan_noscale"})
    assert not at.exception
    assert "plan_noscale" in at.multiselect(key="sbs_names").value
    assert at.selectbox(key="sbs_focus").value == "plan_noscale"
    at.button(key="sbs_draw").click().run()
    assert not at.exception
    assert len(_specs(at)) == len(at.multiselect(key="sbs_names").value) + 3
    assert "Of 100 releases of" in _text(at)


def test_equal_coordinates_and_d1_are_explained():
    at = _page({"n": "500", "d": "4"})
    at.number_input(key="sbs_j").set_value(1).run()
    assert not at.exception and at.warning
    at = _page({"n": "500", "d": "1"})
    assert not at.exception and "two coordinates" in at.info[0].value


def test_binary_and_bounded_data():
    for dist in ("binary_plan", "bounded"):
        at = _page({"n": "500", "d": "8", "distribution": dist})
        assert not at.exception, dist
        assert len(_specs(at)) == len(at.multiselect(key="sbs_names").value) + 2


def test_compare_ranking_links_each_estimator_to_side_by_side():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for k, v in {"n": "500", "d": "4"}.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/compare.py")
    at.run()
    assert not at.exception
    ranking = next(df.value for df in at.dataframe if "side by side" in df.value.columns)
    links = list(ranking["side by side"])
    assert all(u.startswith("side_by_side?") for u in links)
    assert any("estimator=plan&" in u + "&" for u in links)
    assert all("n=500" in u and "d=4" in u and "budget_value=" in u for u in links)
    # the link opens Side by side with that estimator chosen
    query = dict(kv.split("=", 1) for kv in links[0].split("?", 1)[1].split("&"))
    page = _page({k: unquote(v) for k, v in query.items()})
    assert not page.exception
    assert page.selectbox(key="sbs_focus").value == query["estimator"]


def test_home_opens_with_the_why_plan_picture_and_a_link_to_the_story():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert len(_specs(at)) == 2
    text = _text(at)
    assert "PLAN puts less noise where the data vary less" in text and "of 20 runs" in text
    # the figure's fixed setting is labelled as an example, apart from the sidebar's settings
    assert "**Example** (a fixed setting, not your sidebar's)" in text
    assert "n = 4,000 rows, d = 128 columns, ρ = 0.25" in text
    assert "Your sidebar settings, which the other pages use: 2,000 rows × 32 columns" in " ".join(
        i.value for i in at.info
    )


def test_presenter_mode_one_section_per_screen_without_downloads_or_code():
    at = _page({"n": "500", "d": "4", "present": "1"})
    assert not at.exception
    assert at.session_state["present"] is True
    names = at.multiselect(key="sbs_names").value
    specs = _specs(at)  # one idea per screen: the gallery, one figure per estimator
    assert len(specs) == len(names) and not any(sp.get("frames") for sp in specs)
    assert not at.get("download_button") or all(
        b.key == "sbs_deck" for b in at.get("download_button")
    )
    assert not [e for e in at.expander if e.label == "Show the code"]
    # the chart's speaker notes and the page's paragraph: two folds, told apart by their labels
    labels = [e.label for e in at.expander]
    assert "Speaker notes" in labels and "How to read these pictures" in labels
    next_button = next(b for b in at.button if b.label == "Next ▶")
    next_button.click().run()
    assert not at.exception
    assert at.session_state["sbs_slide"] == 1
    at.toggle(key="present").set_value(False).run()
    assert not at.exception and len(_specs(at)) == len(names) + 2


def test_the_intro_is_shown_once():
    at = _page({"n": "300", "d": "3"})
    assert not at.exception
    intros = [
        md for md in at.markdown if md.value.startswith("Every estimator on **the same data**")
    ]
    assert len(intros) == 1
