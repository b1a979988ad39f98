"""The "Free lunch (simplex)" page under streamlit.testing: runs, charts present, widgets change the
numbers shown, and the honest caveats are on the page (specs/simplex.md §0)."""

import json

from streamlit.testing.v1 import AppTest

from tests.pages._apptest import open_page


def _page(query: dict[str, str] | None = None) -> AppTest:
    return open_page("pages/simplex.py", query, timeout=120, check=True)


def _text(at: AppTest) -> str:
    return "\n".join(
        [m.value for m in at.markdown] + [w.value for w in at.warning] + [i.value for i in at.info]
    )


def test_runs_with_charts_and_caveats():
    at = _page()
    assert at.title[0].value == "Free lunch (simplex)"
    charts = at.get("plotly_chart")
    assert len(charts) == 6
    for c in charts:
        assert json.loads(c.proto.spec)["data"]
    text = _text(at)
    assert "identical in distribution" in text and "centred estimator" in text  # caveat 1
    assert "Known n, one column" in text and "half the simplex's" in text  # caveat 2
    assert "compares against a mechanism that is **not DP**" in text  # caveat 2 is not DP
    assert "n as public side information: not DP under add-remove" in text
    assert "n known (add-remove)" not in text
    assert "replace-one" in text
    assert not at.error
    legend = [t["name"] for c in charts for t in json.loads(c.proto.spec)["data"] if "name" in t]
    known_n = {"Simplex, known n", "Noisy sum / n", "Centred noisy sum / n"}
    known = [name for name in legend if name.split(" (")[0] in known_n]
    assert known and all("not DP under add-remove" in name for name in known)


def test_caveat_numbers_are_the_theory():
    at = _page({"unit": "rho", "budget_value": "0.5"})
    warning = at.warning[0].value
    # Gaussian: simplex and centred (equal split) have the same coefficient; Laplace 2x
    assert "0.273 vs 0.273" in warning  # (1 - 2p + 2p²)/2 at p = 0.65
    assert "2× better" in warning
    assert "0.125 vs 0.250" in warning


def test_widgets_change_values():
    at = _page()
    before = _text(at)
    at.slider(key="simplex_p").set_value(0.3).run()
    assert not at.exception
    after = _text(at)
    assert before != after and "p = 0.30" in after
    at.radio(key="simplex_mech").set_value("laplace").run()
    assert not at.exception
    assert "ε" in at.metric[0].value


def test_replace_one_known_n_only():
    at = _page({"unit": "eps", "budget_value": "1.0"})
    at.radio(key="simplex_rel").set_value("replace-one").run()
    assert not at.exception
    text = _text(at)
    assert "n known (replace-one)" in text
    assert "not DP" not in text.split("n known (replace-one)")[1].split("\n")[0]
    assert "2.0× higher than the plain noisy sum" in text  # Laplace: Δ1 doubles
    assert len(at.get("plotly_chart")) == 4  # no unknown-n chart, no free count


def test_extra_count_weight_shown():
    at = _page({"unit": "rho", "budget_value": "0.5"})
    at.slider(key="simplex_extra").set_value(0.2).run()
    assert not at.exception
    # w = ρ/(ρ + 2ρ') with ρ = 0.4, ρ' = 0.1
    assert any("w = 0.667" in i.value for i in at.info)


def test_bad_budget_is_an_error_not_a_traceback():
    at = _page({"unit": "rho", "budget_value": "-1"})
    assert not at.exception


def test_one_notation_one_n_and_colour_blind_safe_overlays():
    at = _page()
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    text = _text(at)
    # the release cloud uses the sidebar's n rows, as the histogram and the ledger do
    assert "of the same 2,000 records" in text
    # one notation: p = μ/R on the slider and on the variance axes; n, never N, on the charts
    assert at.slider(key="simplex_p").label.endswith("p = μ/R")
    axes = [c["layout"].get("xaxis", {}).get("title", {}).get("text", "") for c in charts]
    assert sum("p = μ/R" in a for a in axes) == 2 and not any("(μ − L)" in a for a in axes)
    names = [t.get("name", "") for c in charts for t in c["data"]]
    assert not any(" N " in f" {nm} " for nm in names), names
    # no red-green pair: the two-group overlays use blue and orange (and different marks)
    colours = {
        str(t.get("marker", {}).get("color"))
        for c in charts
        for t in c["data"]
        if t.get("type") in ("histogram", "scatterternary")
    }
    assert not any(g in col for col in colours for g in ("#2ca02c", "#d62728")), colours
    # the ℓ1 ball is drawn as its edge in the first quadrant, no stubs outside the picture
    geometry = charts[0]
    assert not any("l1 ball" in t.get("name", "") for t in geometry["data"])
    assert "ℓ1" in text and " l1 " not in text
    # the takeaway comes first, the caveats after the charts they refer to
    assert text.index("**The point:**") < text.index("Where the lunch is not free")
