"""The "Your data" page under streamlit.testing: a bundled set, pasted CSV text (the same parsing
path as an upload, which AppTest cannot drive), broken input shown as st.error, the three bounds
modes (public, private with the ledger split, read off the data with a leak warning), the teaching
view in each column's units with clipping bias apart from the noise, and release mode's
measure, observe, re-measure with the session odometer."""

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.figures.your_data import FEW
from tests.pages._apptest import open_page

TIMEOUT = 120
GOOD = "city,age,income\nOslo,34,52000\nBergen,51,61000\nOslo,29,\nTromso,46,48000\nOslo,38,75000\n"


def _page(query: dict[str, str] | None = None) -> AppTest:
    return open_page("pages/your_data.py", query, timeout=TIMEOUT)


def _markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def _spec(at: AppTest, i: int = 0) -> dict:
    return json.loads(at.get("plotly_chart")[i].proto.spec)


def _dots(at: AppTest, i: int = 0) -> list[str]:
    """The estimators drawn as dots (not the guarantee headers) in the page's ``i``-th chart."""
    return [
        str(y)
        for tr in _spec(at, i)["data"]
        if tr.get("x") and any(v is not None for v in tr["x"])
        for y in tr["y"]
    ]


def _error_table(at: AppTest):
    """The per-estimator error table, its expander opened (the page reruns on the cached view)."""
    at.session_state["yd_error_table"] = True
    at.run()
    return next(df.value for df in at.dataframe if "median" in df.value.columns)


def _x(at: AppTest) -> list[float]:
    return [v for tr in _spec(at)["data"] for v in (tr.get("x") or []) if v is not None]


def test_bundled_digits_runs_every_estimator_and_shows_the_best_few():
    at = _page()
    assert not at.exception and not at.error
    assert at.title[0].value == "Your data"
    assert any("not a secure differentially private release" in w.value for w in at.warning)
    assert len(at.get("plotly_chart")) == 1
    few = _dots(at)
    table = _error_table(at)
    guarantees = set(table["guarantee"])
    assert 0 < len(few) <= FEW * len(guarantees)
    at.checkbox(key="yd_show_all").check().run()
    every = _dots(at)
    assert len(every) >= 20 and set(few) < set(every)  # every applicable estimator
    assert not any("oracle" in label.lower() for label in every)
    headers = [str(c) for c in _spec(at)["layout"]["yaxis"]["categoryarray"] if "<b>" in str(c)]
    assert len(headers) == len(guarantees) >= 2  # grouped by guarantee
    assert "Over 10 runs each" in _markdown(at) and "not ranked against each other" in _markdown(at)


def test_pasted_csv_good_and_broken():
    at = _page()
    at.radio(key="yd_source").set_value("paste").run()
    assert not at.exception
    ids = "person_id,age,income\n" + "".join(f"{i},{30 + i},{50000 + i}\n" for i in range(9))
    at.text_area(key="yd_text").input(ids).run()
    assert not at.exception
    chosen = next(m for m in at.multiselect if m.label == "Columns to average").value
    assert "person_id" not in chosen and "age" in chosen  # an identifier is not preselected
    at.text_area(key="yd_text").input(GOOD).run()
    assert not at.exception
    # no silent bounds: nothing runs until the user chooses where the ranges come from
    assert any("Choose where the bounds come from" in i.value for i in at.info)
    assert not at.get("plotly_chart")
    at.radio(key="yd_bounds_mode_own").set_value("public").run()
    assert any(
        "Type a lower and an upper value" in i.value for i in at.info
    )  # nothing typed: no default
    assert not at.get("plotly_chart")
    assert not any("ranges you typed" in i.value for i in at.info)
    at.radio(key="yd_bounds_mode_own").set_value("data").run()
    assert any("leak private information" in w.value for w in at.warning)
    # income has a missing value: the drop checkbox appears, checked, and the page runs
    assert at.checkbox(key="yd_dropna").value
    assert not at.error, [e.value for e in at.error]
    assert "2 columns" in " ".join(c.value for c in at.caption)
    # choosing a text column is a clear error, not a traceback
    ms = next(m for m in at.multiselect if m.label == "Columns to average")
    ms.set_value(["city", "age"]).run()
    assert not at.exception
    assert any("not numeric" in e.value for e in at.error)
    # broken files
    for text, message in [("a,b\n1,2\n3,4,5,6\n", "Could not read"), ("a,b,c\n", "no data rows")]:
        at.text_area(key="yd_text").input(text).run()
        assert not at.exception
        assert any(message in e.value for e in at.error), [e.value for e in at.error]


def test_bounds_modes_private_ledger_and_leak_warning():
    at = _page({"unit": "rho", "budget_value": "0.5"})
    at.radio(key="yd_bounds_mode").set_value("private").run()
    assert not at.exception and not at.error
    at.slider(key="yd_share").set_value(0.3).run()
    assert not at.exception
    md = _markdown(at)
    assert "on the private bounds" in md and "(30%)" in md
    ledger = next(df for df in at.dataframe if "stage" in df.value.columns).value
    assert ledger["stage"].iloc[0] == "bounds: lower quantile"
    assert abs(ledger["spent"].sum() - 0.5) < 1e-12 or abs(ledger["spent"].sum() - 1.0) < 1e-12

    at.radio(key="yd_bounds_mode").set_value("data").run()
    assert not at.exception
    assert sum("leak private information" in w.value for w in at.warning) == 1
    assert not any("leaks private information" in c.value for c in at.caption)  # said once
    assert "(not private: bounds read off the data)" in at.subheader[-2].value


def test_typed_bounds_change_the_results():
    at = _page()
    first = _x(at)
    at.selectbox(key="yd_bundled").set_value("cps1988").run()
    assert not at.exception and not at.error
    second = _x(at)
    assert first != second
    assert "heavy right tail" in " ".join(c.value for c in at.caption)


def test_pure_eps_leaves_zcdp_out_and_labels_nonprivate_diagnostics():
    """Under a pure ε budget zCDP estimators are left out (with a note); the
    data-dependent counts appear only under the "non-private diagnostics" label; the code shown skips
    the oracles and the estimators that cannot meet the budget."""
    from dpcore import registry

    at = _page({"unit": "eps", "budget_value": "1"})
    assert not at.exception and not at.error
    assert any("zCDP estimators are left out" in i.value for i in at.info)
    labels = {s.label: s.notion for s in registry.all_estimators()}
    at.checkbox(key="yd_show_all").check().run()
    dots = _dots(at)
    assert dots and all(labels[y] == "pure" for y in dots)
    assert any(e.label == "Non-private diagnostics (teaching only)" for e in at.expander)
    code = "\n".join(c.value for c in at.code)
    # the code calls the page's own view at this budget (which leaves them out: tests/views)
    assert "v = view(YourDataSettings(" in code and "unit='eps'" in code


# ---------------------------------------------------------------------------------------------
# every control of this page lives in the URL and survives navigation


def _code(at: AppTest) -> str:
    return "\n".join(c.value for c in at.code)


def test_controls_restored_from_the_url_and_kept_across_pages():
    query = {
        "yd_bundled": "cps1988",
        "yd_cols": "wage,education",
        "yd_bounds_mode": "private",
        "yd_share": "0.3",
        "yd_q": "0.05",
        "yd_reps": "15",
        "yd_view": "wage",
        "unit": "rho",
    }
    at = _page(query)
    assert not at.exception and not at.error, [e.value for e in at.error]
    want = {
        "yd_source": "bundled",
        "yd_bundled": "cps1988",
        "yd_cols": ["wage", "education"],
        "yd_bounds_mode": "private",
        "yd_share": 0.3,
        "yd_q": 0.05,
        "yd_reps": 15,
        "yd_view": "wage",
    }
    assert {k: at.session_state[k] for k in want} == want
    at.slider(key="yd_reps").set_value(5).run()
    assert at.query_params["yd_reps"] == "5"
    at.switch_page("pages/home.py").run()
    assert not any(k in at.query_params for k in want)
    at.switch_page("pages/your_data.py").run()
    assert not at.exception
    assert {k: at.session_state[k] for k in want} == {**want, "yd_reps": 5}
    assert at.query_params["yd_cols"] == "wage,education" and at.query_params["yd_reps"] == "5"
    assert "budget, repetitions" not in _markdown(at)


def test_typed_bounds_travel_in_the_link():
    bounds = '{"wage":[0.0,2000.0],"education":[0.0,20.0]}'
    at = _page({"yd_bundled": "cps1988", "yd_cols": "wage,education", "yd_bounds": bounds})
    assert not at.exception and not at.error
    # the exploration used the typed ranges
    assert "lower=(0.0, 0.0), upper=(2000.0, 20.0)" in _code(at)
    assert json.loads(at.query_params["yd_bounds"]) == json.loads(bounds)
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/your_data.py").run()
    assert "lower=(0.0, 0.0), upper=(2000.0, 20.0)" in _code(at)
    # a broken value is ignored: the documented ranges apply, no traceback
    broken = _page({"yd_bundled": "cps1988", "yd_cols": "wage", "yd_bounds": "{not json"})
    assert not broken.exception and not broken.error
    assert "lower=(0.0,), upper=(50000.0,)" in _code(broken)


def test_a_link_to_an_upload_asks_for_the_file():
    at = _page({"yd_source": "upload", "yd_cols": "age,income", "yd_bounds_mode_own": "public"})
    assert not at.exception and not at.error
    assert any("Upload the CSV file this link was made with" in i.value for i in at.info)
    assert any("carries the settings but not the file" in c.value for c in at.caption)
    assert not at.get("plotly_chart")  # no silent default data or bounds
    plain = _page({"yd_source": "upload"})
    assert any("Upload a CSV file to begin" in i.value for i in plain.info)


# ---------------------------------------------------------------------------------------------
# release mode: one unseeded release, a session odometer, the certificate, no true mean

INCOMES = "age,income\n34,52000\n51,61000\n29,61000000\n46,48000\n38,75000\n" + "".join(
    f"{20 + i % 40},{30000 + i * 37}\n" for i in range(300)
)
RELEASE_QUERY = {
    "yd_run_mode": "release",
    "yd_source": "paste",
    "yd_bounds_mode_own": "public",
    "unit": "eps",
    "budget_value": "0.5",
    "yd_bounds": json.dumps({"age": [0, 100], "income": [0, 200000]}),
}


def _release_page(text: str = INCOMES, n_public: bool = True, **query: str) -> AppTest:
    at = _page({**RELEASE_QUERY, **query})
    at.text_area(key="yd_text").input(text).run()
    if n_public and any(c.key == "yd_n_public" for c in at.checkbox):
        at.checkbox(key="yd_n_public").check().run()  # the default estimator is replace-one
    return at


def _spent(at: AppTest) -> str:
    return at.session_state["_yd_odometer"].spent


def test_release_mode_releases_once_and_charges_the_odometer():
    at = _release_page()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert not any("not a secure differentially private release" in w.value for w in at.warning)
    assert not at.get("plotly_chart")  # no comparison with the true mean
    assert _spent(at) == 0
    at.button(key="yd_release_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert _spent(at) == 0.5
    text = _markdown(at)
    assert "With 95% probability the noise moved the mean of income by less than $" in text
    table = at.dataframe[-1].value
    assert list(table["column"]) == ["age", "income"]
    assert table["released mean"].iloc[1].startswith("$")
    labels = [b.label for b in at.get("download_button")]
    assert "Download the certificate to publish (JSON)" in labels
    assert "Download the curator's record, not for publication (JSON)" in labels
    paragraph = " ".join(str(m.value) for m in at.markdown)
    assert "ε-differential privacy with ε = 0.5" in paragraph
    # the true mean (about 232,000 with the $61M row) is nowhere on the page
    assert "232" not in paragraph.replace(",", "")
    # a second release fits (0.5 of 1 left), a third is refused and costs nothing
    at.button(key="yd_release_go").click().run()
    assert _spent(at) == 1.0
    at.button(key="yd_release_go").click().run()
    assert any("nothing was released" in e.value for e in at.error)
    assert _spent(at) == 1.0


def _nothing_charged(at: AppTest) -> bool:
    ss = at.session_state  # AppTest's session state has no .get
    released = ss["_yd_series"] if "_yd_series" in ss else []  # noqa: SIM401
    return not released and ("_yd_odometer" not in at.session_state or _spent(at) == 0)


def test_remeasure_combines_two_releases_and_shows_how_the_total_composes():
    at = _release_page(budget_value="0.25")
    at.button(key="yd_release_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.button(key="yd_release_go").label.startswith("Spend more and re-measure")
    one = at.session_state["_yd_series"][0].accuracy
    at.button(key="yd_release_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert _spent(at) == 0.5
    table = next(df.value for df in at.dataframe if "release" in df.value.columns)
    assert list(table["release"]) == [
        "release 1 (ε = 0.25)",
        "release 2 (ε = 0.25)",
        "combined (inverse variance)",
    ]
    text = _markdown(at)
    assert "ε = 0.25 + 0.25 = 0.5" in text and "adding the ε's" in text
    assert "costs nothing more" in text
    chart = _spec(at)["data"][0]
    assert chart["y"][-1] == "combined (inverse variance)"
    # two equal releases: the combined half-width is about 1/sqrt(2) of one release's
    combined = chart["error_x"]["array"][-1]
    assert 0.6 < combined / one[0] < 0.8
    # a change of estimator starts a new series: nothing combined across different estimators
    at.selectbox(key="yd_rel_est").set_value("pmwm").run()
    assert at.button(key="yd_release_go").label.startswith("Release the means")
    assert any("not combined with these" in c.value for c in at.caption)


def test_two_sessions_on_one_file_share_the_odometer():
    """A reload or a second tab (a fresh session state) sees what was spent on the same file; the
    total cannot be raised once spent, except by the logged action that starts a new budget."""
    one = _release_page()
    for _ in range(2):
        one.button(key="yd_release_go").click().run()
    assert _spent(one) == 1.0 and not one.error
    one.number_input(key="yd_odo_total").set_value(100.0).run()
    assert any("lowered but not raised" in e.value for e in one.error)
    assert one.number_input(key="yd_odo_total").value == 1.0
    one.button(key="yd_release_go").click().run()
    assert any("nothing was released" in e.value for e in one.error) and _spent(one) == 1.0
    two = _release_page()  # a second session on the same file
    assert _spent(two) == 1.0
    two.button(key="yd_release_go").click().run()
    assert any("nothing was released" in e.value for e in two.error) and _spent(two) == 1.0
    assert "What this odometer protects" in " ".join(c.value for c in two.caption)
    two.number_input(key="yd_new_total").set_value(2.0).run()
    two.text_input(key="yd_new_reason").input("new quarter").run()
    two.button(key="yd_new_budget").click().run()
    assert _spent(two) == 0.0 and two.number_input(key="yd_odo_total").value == 2.0
    log = next(df.value for df in two.dataframe if "action" in df.value.columns)
    assert "start a new budget" in list(log["action"])
    assert "new quarter" in log["detail"].iloc[-1]
    one.run()  # the first session sees the new budget too
    assert _spent(one) == 0.0


def test_replace_one_needs_n_declared_public_and_costs_nothing_without():
    at = _release_page(n_public=False)
    at.button(key="yd_release_go").click().run()
    assert any("n_public=True" in e.value or "number of rows" in e.value for e in at.error)
    assert _nothing_charged(at)


def test_a_release_beyond_the_session_total_is_refused_and_costs_nothing():
    at = _release_page(budget_value="2")  # the session's total is ε = 1
    at.button(key="yd_release_go").click().run()
    assert not at.exception
    assert any("nothing was released" in e.value for e in at.error), [e.value for e in at.error]
    assert _nothing_charged(at)


def _undropped(at: AppTest) -> AppTest:
    at.checkbox(key="yd_dropna").uncheck().run()
    return at


def _published_paragraph(at: AppTest) -> str:
    return " ".join(str(m.value) for m in at.markdown)


def test_the_rule_for_blanks_is_published_whether_or_not_the_file_had_any():
    """A sentence about blanks only when the file had some would publish that bit of the data,
    uncharged: the rule is stated on every release, with or without blanks."""
    texts = []
    for text in (INCOMES, INCOMES + "".join(f"{30 + i},\n" for i in range(21))):
        at = _release_page(text)
        at.button(key="yd_release_go").click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        texts.append(_published_paragraph(at))
    for paragraph in texts:
        assert "whether there were any, and how many, is not published" in paragraph, paragraph


def test_release_honours_the_ticked_drop_and_never_publishes_the_count():
    blanks = INCOMES + "".join(f"{30 + i},\n" for i in range(21))  # 21 rows with a blank income
    at = _release_page(blanks)
    assert at.checkbox(key="yd_dropna").value  # "Drop the 21 rows" ticked: the release runs
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.button(key="yd_release_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert len(at.session_state["_yd_series"]) == 1 and _spent(at) > 0
    cert = at.session_state["_yd_series"][0].certificate
    assert "n" not in cert["public"]  # no exact count of the rows left either
    paragraph = " ".join(str(m.value) for m in at.markdown)
    assert "rows with a blank" in paragraph.lower() and "dropped" in paragraph
    # neither the dropped count nor the rows left (305 + 21 given) appear next to "rows"
    assert not re.search(r"\b(21|305|326)\b[^.]{0,20}rows", paragraph.replace(",", "")), paragraph


def test_release_mode_bad_input_costs_nothing():
    for at in (
        _release_page(yd_bounds=json.dumps({"age": [100, 0], "income": [0, 1]})),  # wrong order
        _undropped(_release_page("age,income\n34,52000\n51,\n29,61000\n")),  # a NaN, kept
        _release_page(yd_bounds_mode_own="data"),  # bounds read off the data
    ):
        assert at.error and not at.exception, [e.value for e in at.error]
        assert _nothing_charged(at)
    for text in ("age,income\n34,52000\n51,lots\n29,61000\n", "age,income\n34,\n51,\n29,\n"):
        at = _release_page(text)  # text in a numeric column; an empty column
        ms = next(m for m in at.multiselect if m.label == "Columns to average")
        ms.set_value(["age", "income"]).run()
        assert at.error and not at.exception, text
        assert _nothing_charged(at)


# ---------------------------------------------------------------------------------------------
# the teaching view on incomes with one $61M row: each column in its units, clipping bias apart

OUTLIER = "age,income,hours\n29,61000000,40\n" + "".join(
    f"{20 + i % 50},{20000 + (i * 7919) % 90000},{30 + i % 20}\n" for i in range(600)
)
EXPLORE_QUERY = {  # the release test's settings, in exploration, under a ρ budget
    **{k: v for k, v in RELEASE_QUERY.items() if k != "yd_run_mode"},
    "unit": "rho",
    "yd_bounds": json.dumps({"age": [0, 100], "income": [0, 250000], "hours": [0, 80]}),
}


def test_incomes_with_an_outlier_keep_each_column_in_its_units():
    at = _page(EXPLORE_QUERY)
    at.text_area(key="yd_text").input(OUTLIER).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    text = _markdown(at)
    # the clipping bias, in dollars, apart from any noise: (clipped - raw) mean of income
    raw = (61_000_000 + sum(20000 + (i * 7919) % 90000 for i in range(600))) / 601
    clipped = raw - (61_000_000 - 250_000) / 601
    assert f"this moved the mean by -${raw - clipped:,.0f}" in text
    assert "0.17% of income values lie outside [$0, $250,000]" in text
    assert "No value of the other 2 columns lies outside their bounds" in text
    # all columns together only as shares of each range: no axis adds dollars, years and hours
    assert "% of each column's range" in _spec(at)["layout"]["xaxis"]["title"]["text"]
    # one column in its units: the raw mean at 0 and the clipped mean at the clipping bias
    at.selectbox(key="yd_view").set_value("income").run()
    assert not at.exception and not at.error
    lines = sorted(s["x0"] for s in _spec(at)["layout"]["shapes"])
    assert lines == [pytest.approx(clipped - raw), 0.0]
    assert "Clipping alone moved the mean by -$" in _markdown(at)
    # the best estimator of each guarantee lands near the clipped mean, not the raw one
    table = _error_table(at)
    best = table.sort_values("ranked by").groupby("guarantee").head(1)
    assert (abs(best["median"] - (clipped - raw)) < abs(best["median"])).all()


def test_a_word_in_a_numeric_column_is_named_with_its_row():
    at = _page()
    at.radio(key="yd_source").set_value("paste").run()
    rows = "".join(f"{30 + i},{50000 + i}\n" for i in range(17))
    at.text_area(key="yd_text").input("age,income\n" + rows + "forty,51000\n").run()
    assert not at.exception
    assert any("age: 1 non-numeric value (row 18: 'forty')" in w.value for w in at.warning), [
        w.value for w in at.warning
    ]


def _send(at: AppTest) -> None:
    next(b for b in at.button if b.label == "Use these bounds").click().run()


def test_the_bounds_boxes_keep_their_keys_and_values_across_runs_and_pages():
    """Values typed are kept: each bound has its own box under a key that depends on its column
    alone (the same in every run), bound to the URL; a half-typed range survives a page visit, a
    sent complete one is used and carried by the link as ``yd_bounds``."""
    at = _page({"yd_source": "paste", "yd_bounds_mode_own": "public"})
    at.text_area(key="yd_text").input("age,income\n34,52000\n51,61000\n29,41000\n").run()
    keys = {t.key for t in at.text_input if t.key.startswith("yd_")}
    assert keys == {"yd_lo_age", "yd_hi_age", "yd_lo_income", "yd_hi_income"}
    assert all(at.text_input(key=k).value == "" for k in keys)  # an upload's ranges: none assumed
    at.text_input(key="yd_lo_age").input("0")
    at.text_input(key="yd_hi_age").input("100")
    at.text_input(key="yd_lo_income").input("0")
    _send(at)
    assert not at.exception
    assert {t.key for t in at.text_input if t.key.startswith("yd_")} == keys
    assert any("Type a lower and an upper value" in i.value for i in at.info)  # income half-typed
    assert json.loads(at.query_params["yd_bounds"]) == {"age": [0.0, 100.0]}
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/your_data.py").run()
    assert [at.text_input(key=k).value for k in ("yd_lo_age", "yd_hi_age", "yd_lo_income")] == [
        "0",
        "100",
        "0",
    ]
    at.text_input(key="yd_hi_income").input("250000")
    _send(at)
    assert not at.exception and not any("Type a lower" in i.value for i in at.info)
    assert "lower=(0.0, 0.0), upper=(100.0, 250000.0)" in _code(at)


def test_closed_expanders_tables_are_drawn_when_opened():
    """A first view draws only the tables a visitor sees (the columns and the ledger); each
    closed expander's table (clipping, per-estimator errors, non-private diagnostics) is drawn
    when it is opened, which reruns the page on the cached view: the same chart and numbers."""
    at = _page()
    assert not at.exception and not at.error
    chart = _spec(at)
    seen = [set(map(str, df.value.columns)) for df in at.dataframe]
    assert len(seen) == 2 and "stage" in seen[1]  # the columns' table and the ledger
    assert not any("diagnostics" in c for c in seen[0] | seen[1])
    opened = {
        "yd_clip_table": "moved by clipping",
        "yd_error_table": "median",
        "yd_diagnostics": "diagnostics",
    }
    for key, column in opened.items():
        at.session_state[key] = True
        at.run()
        assert not at.exception and not at.error
        assert any(column in map(str, df.value.columns) for df in at.dataframe), key
    assert len(at.dataframe) == 5 and _spec(at) == chart
    assert any("not** private and are not part of any release" in c.value for c in at.caption)


def test_a_new_seed_reuses_the_overview(monkeypatch):
    """The overview (clipping, spreads, the estimators that apply) reads no random stream: a
    visitor on another seed gets the cached one, and the runs choose their estimators without
    computing it again. The page shows the same clipping sentence on both seeds."""
    from dpcore.views import your_data as module

    calls = []
    real = module.overview

    def counted(settings):
        calls.append(settings)
        return real(settings)

    monkeypatch.setattr(module, "overview", counted)
    first = _page({"seed": "31"})
    assert not first.exception and calls
    calls.clear()
    second = _page({"seed": "32"})
    assert not second.exception and not second.error
    assert calls == []
    assert _markdown(first).split("Over")[0] == _markdown(second).split("Over")[0]
    assert _x(first) != _x(second)  # the runs follow the seed
