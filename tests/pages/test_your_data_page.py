"""The "Your data" page under streamlit.testing: a bundled set, pasted CSV text (the same parsing
path as an upload, which AppTest cannot drive), broken input shown as st.error, the three bounds
modes (public, private with the ledger split, read off the data with a leak warning)."""

import json

from streamlit.testing.v1 import AppTest

from tests.pages._apptest import open_page

TIMEOUT = 120
GOOD = "city,age,income\nOslo,34,52000\nBergen,51,61000\nOslo,29,\nTromso,46,48000\nOslo,38,75000\n"


def _page(query: dict[str, str] | None = None) -> AppTest:
    return open_page("pages/your_data.py", query, timeout=TIMEOUT)


def _markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_bundled_digits_runs_every_estimator():
    at = _page()
    assert not at.exception and not at.error
    assert at.title[0].value == "Your data"
    assert any("not a secure differentially private release" in w.value for w in at.warning)
    charts = at.get("plotly_chart")
    assert len(charts) == 2
    bars = json.loads(charts[0].proto.spec)["data"][0]
    assert len(bars["y"]) >= 20  # every applicable estimator, oracle variants left out
    assert not any("oracle" in label.lower() for label in bars["y"])
    assert "what an analyst would *not* see" in _markdown(at)
    assert "95% of" in _markdown(at)


def test_pasted_csv_good_and_broken():
    at = _page()
    at.radio(key="yd_source").set_value("paste").run()
    assert not at.exception
    at.text_area(key="yd_text").input(GOOD).run()
    assert not at.exception
    # no silent bounds: nothing runs until the user chooses where the ranges come from (issue 15)
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
    assert any("leak private information" in w.value for w in at.warning)
    assert any("leaks private information" in c.value for c in at.caption)


def test_typed_bounds_change_the_results():
    at = _page()
    first = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]["x"]
    at.selectbox(key="yd_bundled").set_value("cps1988").run()
    assert not at.exception and not at.error
    second = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]["x"]
    assert first != second
    assert "heavy right tail" in " ".join(c.value for c in at.caption)


def test_pure_eps_leaves_zcdp_out_and_labels_nonprivate_diagnostics():
    """Issue 11 items 4, 6, 7: under a pure ε budget zCDP estimators are left out (with a note); the
    data-dependent counts appear only under the "non-private diagnostics" label; the code shown skips
    the oracles and the estimators that cannot meet the budget."""
    from dpcore import registry

    at = _page({"unit": "eps", "budget_value": "1"})
    assert not at.exception and not at.error
    assert any("zCDP estimators are left out" in i.value for i in at.info)
    labels = {s.label: s.notion for s in registry.all_estimators()}
    bars = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    assert bars["y"] and all(labels[y] == "pure" for y in bars["y"])
    assert any(e.label == "Non-private diagnostics (teaching only)" for e in at.expander)
    code = "\n".join(c.value for c in at.code)
    assert "not spec.meets(budget)" in code and "'oracle' in spec.name" in code


# ---------------------------------------------------------------------------------------------
# issue 15: every control of this page lives in the URL and survives navigation


def _code(at: AppTest) -> str:
    return "\n".join(c.value for c in at.code)


def test_controls_restored_from_the_url_and_kept_across_pages():
    query = {
        "yd_bundled": "cps1988",
        "yd_cols": "wage,education",
        "yd_bounds_mode": "private",
        "yd_share": "0.3",
        "yd_q": "0.05",
        "yd_reps": "10",
        "yd_rep_names": "gaussian_private",
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
        "yd_reps": 10,
        "yd_rep_names": ["gaussian_private"],
    }
    assert {k: at.session_state[k] for k in want} == want
    at.slider(key="yd_reps").set_value(15).run()
    assert at.query_params["yd_reps"] == "15"
    at.switch_page("pages/home.py").run()
    assert not any(k in at.query_params for k in want)
    at.switch_page("pages/your_data.py").run()
    assert not at.exception
    assert {k: at.session_state[k] for k in want} == {**want, "yd_reps": 15}
    assert at.query_params["yd_cols"] == "wage,education" and at.query_params["yd_reps"] == "15"
    assert "budget, repetitions" not in _markdown(at)


def test_typed_bounds_travel_in_the_link():
    bounds = '{"wage":[0.0,2000.0],"education":[0.0,20.0]}'
    at = _page({"yd_bundled": "cps1988", "yd_cols": "wage,education", "yd_bounds": bounds})
    assert not at.exception and not at.error
    assert "[0.0, 0.0], [2000.0, 20.0]" in _code(at)  # the release used the typed ranges
    assert json.loads(at.query_params["yd_bounds"]) == json.loads(bounds)
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/your_data.py").run()
    assert "[0.0, 0.0], [2000.0, 20.0]" in _code(at)
    # a broken value is ignored: the documented ranges apply, no traceback
    broken = _page({"yd_bundled": "cps1988", "yd_cols": "wage", "yd_bounds": "{not json"})
    assert not broken.exception and not broken.error
    assert "[0.0], [50000.0]" in _code(broken)


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


def _release_page(text: str = INCOMES, **query: str) -> AppTest:
    at = _page({**RELEASE_QUERY, **query})
    at.text_area(key="yd_text").input(text).run()
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
    assert any(b.label == "Download the certificate (JSON)" for b in at.get("download_button"))
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
    return "_yd_release" not in at.session_state and (
        "_yd_odometer" not in at.session_state or _spent(at) == 0
    )


def test_release_mode_bad_input_costs_nothing():
    for at in (
        _release_page(yd_bounds=json.dumps({"age": [100, 0], "income": [0, 1]})),  # wrong order
        _release_page("age,income\n34,52000\n51,\n29,61000\n"),  # a NaN
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
