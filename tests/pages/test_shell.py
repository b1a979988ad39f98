"""The app shell and the foundation pages under ``streamlit.testing``: widgets, values shown,
URL parameters restored, and impossible input shown as an error, never a traceback."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.privacy import zcdp_to_approx
from pages._sidebar import DEFAULTS, Settings, parse_query
from tests.pages._apptest import open_app

TIMEOUT = 120


def _app(query: dict[str, str] | None = None) -> AppTest:
    return open_app(query, timeout=TIMEOUT)


def test_home_runs_and_writes_settings_to_url():
    at = _app().run()
    assert not at.exception
    assert at.title[0].value == "dpmean lab"
    assert at.query_params["n"] == str(DEFAULTS.n)
    assert at.query_params["unit"] == "rho"


def test_url_parameters_are_restored():
    at = _app(
        {
            "distribution": "student_t",
            "skew": "0.5",
            "n": "1234",
            "d": "8",
            "unit": "eps",
            "budget_value": "1.5",
            "seed": "7",
        }
    ).run()
    assert not at.exception
    assert at.selectbox(key="distribution").value == "student_t"
    assert at.number_input(key="n").value == 1234
    assert at.number_input(key="seed").value == 7
    assert at.radio(key="unit").value == "eps"
    assert at.number_input(key="budget_value").value == 1.5
    assert "ε = 1.5" in at.info[0].value


def test_broken_url_falls_back_to_defaults():
    at = _app({"n": "lots", "distribution": "nope", "skew": "99", "budget_value": "nan"}).run()
    assert not at.exception
    assert at.number_input(key="n").value == DEFAULTS.n
    assert at.selectbox(key="distribution").value == DEFAULTS.distribution


def test_settings_kept_across_pages_and_new_seed():
    at = _app().run()
    at.number_input(key="n").set_value(777).run()
    at.button[0].click().run()
    at.switch_page("pages/privacy_budget.py").run()
    assert not at.exception
    assert at.number_input(key="n").value == 777
    assert at.number_input(key="seed").value == 1
    assert at.query_params["seed"] == "1"


def _ledger_chart(at):
    return next(c for c in at.get("plotly_chart") if c.key == "chart-ledger")


def test_privacy_budget_page_values_follow_the_budget():
    at = _app({"unit": "rho", "budget_value": "0.5"})
    at.run()
    at.switch_page("pages/privacy_budget.py").run()
    assert not at.exception
    values = [m.value for m in at.metric]
    assert values[0] == "0.5" and values[2] == "1"  # rho and sqrt(2 rho)
    keys = {c.key for c in at.get("plotly_chart")}
    assert {"chart-epsilon_delta", "chart-ledger"} <= keys  # beside the attack and risk lessons
    at.number_input(key="budget_value").set_value(2.0).run()
    assert next(m.value for m in at.metric) == "2"
    at.radio(key="unit").set_value(
        "eps_delta"
    ).run()  # converted: what 2-zCDP implies at δ = 1e-6 (CKS)
    assert not at.exception
    assert f"(ε, δ) = ({zcdp_to_approx(2.0, 1e-6):.6g}, 1e-06)" in at.subheader[0].value


@pytest.mark.parametrize("value", [0.0, -1.0])
def test_impossible_budget_is_an_error_not_a_traceback(value):
    at = _app().run()
    at.number_input(key="budget_value").set_value(value).run()
    assert not at.exception
    assert at.error and "impossible" in at.error[0].value
    at.number_input(key="budget_value").set_value(0.5).run()
    assert not at.error


def test_parse_query_and_settings_roundtrip():
    s = Settings(
        distribution="bounded",
        skew=1.5,
        n=300,
        d=4,
        unit="eps_delta",
        budget_value=0.3,
        delta=1e-5,
        seed=9,
    )
    assert Settings(**{**DEFAULTS.__dict__, **parse_query(s.to_query())}) == s
    assert parse_query({"n": "x", "unit": "bits"}) == {}


def test_ledger_chart_main_estimators_then_all():
    at = _app({"distribution": "bounded", "skew": "0", "n": "400", "d": "4"}).run()
    at.switch_page("pages/privacy_budget.py").run()
    assert not at.exception

    def bars() -> set[str]:
        spec = json.loads(_ledger_chart(at).proto.spec)
        return {y for trace in spec["data"] for y in trace["y"]}

    main = bars()
    at.toggle[0].set_value(True).run()
    assert not at.exception
    every = bars()
    assert main < every and len(every) >= 20


def test_privacy_budget_page_under_pure_eps_never_lets_zcdp_meet_it():
    """Under a pure ε budget the page says zCDP estimators cannot meet it, shows ρ = ε²/2
    only as the weaker level ε-DP implies, explains each implication's direction, and the ledger chart
    holds pure-DP estimators only."""
    from dpcore import registry

    at = _app(
        {
            "unit": "eps",
            "budget_value": "1",
            "distribution": "bounded",
            "skew": "0",
            "n": "400",
            "d": "2",
        }
    ).run()
    at.switch_page("pages/privacy_budget.py").run()
    assert not at.exception and not at.error
    assert (
        at.metric[0].label.startswith("ρ that ε-DP implies (weaker, not ε-DP)")
        and at.metric[0].value == "0.5"
    )
    assert any("zCDP estimators cannot meet a pure ε budget" in w.value for w in at.warning)
    text = "\n".join(m.value for m in at.markdown)
    assert "| ρ-zCDP | pure ε-DP | **no**" in text and "| pure ε-DP | ε²/2-zCDP | yes" in text
    at.toggle[0].set_value(True).run()
    labels = {s.label: s.notion for s in registry.all_estimators()}
    spec = json.loads(_ledger_chart(at).proto.spec)
    shown = {y for trace in spec["data"] for y in trace["y"]}
    assert shown and all(labels[y] == "pure" for y in shown)


def test_shared_page_helpers_keep_their_import_path():
    """Every name a module of the repo imports from ``pages._ui`` is there, and a re-exported one
    is the object its own module defines (the sidebar, URL, shell and feedback helpers)."""
    import ast
    import importlib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    imported = {
        alias.name
        for folder in ("pages", "tests", "benchmarks")
        for path in (root / folder).rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module == "pages._ui"
        for alias in node.names
    }
    assert {"chart", "set_sidebar", "url_widget", "parse_query"} <= imported  # the scan works
    ui = importlib.import_module("pages._ui")
    assert not imported - set(dir(ui)), "importable from pages._ui no more"
    homes = [
        importlib.import_module(f"pages.{m}") for m in ("_sidebar", "_url", "_shell", "_feedback")
    ]
    for name in ui.__all__:
        for home in homes:
            if name in vars(home):
                assert vars(home)[name] is getattr(ui, name), name
