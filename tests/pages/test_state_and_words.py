"""State and words under ``streamlit.testing``: one source of truth for state (presets write the
sidebar, page-local controls live in the URL and survive navigation, unit switches convert, ignored
controls are disabled with a reason, δ above 1/n warns), a time estimate before a long run, and the
words a user sees (glossary, no references to files a user does not have, no internal labels)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpcore import registry
from dpcore.experiments import ExperimentConfig
from dpcore.experiments.cost import estimate_seconds, seconds_per_run
from dpcore.glossary import GLOSSARY, define
from dpcore.privacy import approx_to_zcdp, zcdp_to_approx
from pages._sidebar import convert_unit
from pages._spec import PAGES as SPEC_PAGES

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
SMALL = {"n": "300", "d": "4"}


def _app(query: dict[str, str] | None = None, page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=240)
    for k, v in {**SMALL, **(query or {})}.items():
        at.query_params[k] = v
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def _sidebar_widget(at: AppTest, key: str):  # noqa: ANN202
    for kind in ("selectbox", "slider", "number_input", "radio"):
        for w in at.sidebar.get(kind):
            if getattr(w, "key", None) == key:
                return w
    raise AssertionError(key)


# ---------------------------------------------------------------------------------------------
# state


def test_preset_writes_the_sidebar_and_the_url() -> None:
    at = _app(page="pages/compare.py")
    at.selectbox(key="cmp_preset").set_value("no_skew_tie").run()
    assert not at.exception
    want = {
        "distribution": "gaussian",
        "n": 4000,
        "d": 128,
        "skew": 0.0,
        "budget_value": 0.25,
        "unit": "rho",
    }
    assert {k: at.session_state[k] for k in want} == want
    assert at.number_input(key="n").value == 4000 and at.slider(key="skew").value == 0.0
    q = at.query_params
    assert (
        q["preset"] == "no_skew_tie"
        and q["n"] == "4000"
        and q["d"] == "128"
        and q["budget_value"] == "0.25"
    )


def test_bare_preset_link_sets_the_sidebar_but_a_full_link_wins() -> None:
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params["preset"] = "heavy_tails"
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert at.session_state["distribution"] == "contaminated" and at.session_state["n"] == 2000
    at2 = _app(
        {"preset": "heavy_tails", "distribution": "gaussian", "n": "500", "d": "8"},
        "pages/compare.py",
    )
    assert at2.session_state["distribution"] == "gaussian" and at2.session_state["n"] == 500
    assert any("Changed from the preset" in c.value for c in at2.caption)


PAGE_CONTROLS = [
    (
        "pages/plan_step_by_step.py",
        {
            "plan_p": ("1", 1),
            "plan_var": ("oracle", "oracle"),
            "plan_i": ("3", 3),
            "plan_e": ("0.5", 0.5),
        },
    ),
    (
        "pages/winsorized.py",
        {
            "wins_eta": ("0.2", 0.2),
            "wins_stat": ("median", "median"),
            "wins_shift": ("20.0", 20.0),
            "wins_version": ("pure", "pure"),
        },
    ),
    (
        "pages/simplex.py",
        {
            "simplex_p": ("0.3", 0.3),
            "simplex_rel": ("replace-one", "replace-one"),
            "simplex_mech": ("laplace", "laplace"),
        },
    ),
    (
        "pages/binary_product.py",
        {"bp_profile": ("dense", "dense"), "bp_d": ("32", 32), "bp_n": ("10000", 10000)},
    ),
]


@pytest.mark.parametrize(("page", "controls"), PAGE_CONTROLS, ids=[p for p, _ in PAGE_CONTROLS])
def test_page_controls_restored_from_the_url_and_after_navigation(
    page: str, controls: dict
) -> None:
    at = _app({k: raw for k, (raw, _) in controls.items()}, page)
    assert {k: at.session_state[k] for k in controls} == {k: v for k, (_, v) in controls.items()}
    at.switch_page("pages/home.py").run()
    assert not any(
        k in at.query_params for k in controls
    )  # another page's URL carries its own state only
    at.switch_page(page).run()
    assert not at.exception
    assert {k: at.session_state[k] for k in controls} == {k: v for k, (_, v) in controls.items()}
    assert {k: at.query_params[k] for k in controls} == {k: raw for k, (raw, _) in controls.items()}


def test_a_changed_control_is_written_to_the_url_and_bad_values_fall_back() -> None:
    at = _app(page="pages/plan_step_by_step.py")
    at.number_input(key="plan_j").set_value(2).run()
    assert at.query_params["plan_j"] == "2"
    bad = _app({"plan_i": "99", "plan_p": "7"}, "pages/plan_step_by_step.py")
    assert bad.session_state["plan_i"] == 1 and bad.session_state["plan_p"] == 2


def test_compare_controls_live_in_the_url() -> None:
    at = _app({"cmp_x": "n", "cmp_reps": "3", "cmp_metric": "l1"}, "pages/compare.py")
    assert at.session_state["cmp_x"] == "n" and at.session_state["cmp_reps"] == 3
    assert at.session_state["cmp_metric"] == "l1"
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/compare.py").run()
    assert at.query_params["cmp_x"] == "n" and at.query_params["cmp_reps"] == "3"


def test_compare_target_lives_in_the_url_and_survives_navigation() -> None:
    at = _app({"cmp_x": "n", "cmp_target": "0.25"}, "pages/compare.py")
    assert at.number_input(key="cmp_target").value == 0.25
    assert at.query_params["cmp_target"] == "0.25"
    at.number_input(key="cmp_target").set_value(0.4).run()
    assert at.query_params["cmp_target"] == "0.4"
    at.switch_page("pages/home.py").run()
    assert "cmp_target" not in at.query_params
    at.switch_page("pages/compare.py").run()
    assert at.number_input(key="cmp_target").value == 0.4
    assert at.query_params["cmp_target"] == "0.4"
    # another error norm asks for its own target: back to that norm's default
    at.selectbox(key="cmp_metric").set_value("linf").run()
    assert not at.exception
    assert at.number_input(key="cmp_target").value != 0.4
    bad = _app({"cmp_x": "budget", "cmp_target": "-3"}, "pages/compare.py")
    assert bad.number_input(key="cmp_target").value > 0  # a bad value falls back to the default


@pytest.mark.parametrize(
    ("old", "new", "value", "want"),
    [
        ("rho", "eps", 0.5, 1.0),
        ("eps", "rho", 1.0, 0.5),
        ("eps", "eps_delta", 1.0, 1.0),
        ("eps_delta", "eps", 1.0, 1.0),
        ("rho", "eps_delta", 0.5, zcdp_to_approx(0.5, 1e-6)),
        ("eps_delta", "rho", 2.0, approx_to_zcdp(2.0, 1e-6)),
    ],
)
def test_unit_conversion_rule(old: str, new: str, value: float, want: float) -> None:
    got, rule = convert_unit(old, new, value, 1e-6)
    assert math.isclose(got, want, rel_tol=1e-9) and rule
    back, _ = convert_unit(new, old, got, 1e-6)
    assert math.isclose(back, value, rel_tol=1e-6)  # each pair of rules is inverse


def test_unit_switch_converts_the_number_and_shows_the_rule() -> None:
    at = _app({"unit": "rho", "budget_value": "0.5"})
    at.radio(key="unit").set_value("eps").run()
    assert at.number_input(key="budget_value").value == pytest.approx(1.0)
    assert any("ε = √(2ρ)" in c.value for c in at.sidebar.caption)
    assert at.query_params["budget_value"] == "1.0" and at.query_params["unit"] == "eps"
    at.radio(key="unit").set_value("rho").run()
    assert at.number_input(key="budget_value").value == pytest.approx(0.5)
    at.radio(key="unit").set_value("eps_delta").run()
    assert at.number_input(key="budget_value").value == pytest.approx(
        zcdp_to_approx(0.5, 1e-6), rel=1e-5
    )
    assert any("Canonne–Kamath–Steinke" in c.value for c in at.sidebar.caption)


def test_delta_above_one_over_n_warns_and_delta_is_disabled_unless_used() -> None:
    at = _app({"unit": "rho"})
    assert _sidebar_widget(at, "delta").disabled
    at.radio(key="unit").set_value("eps_delta").run()
    assert not _sidebar_widget(at, "delta").disabled and not at.sidebar.warning
    at.number_input(key="delta").set_value(0.5).run()
    assert not at.exception
    assert any("above 1/n" in w.value for w in at.sidebar.warning)


@pytest.mark.parametrize(
    ("page", "off", "on"),
    [
        ("pages/simplex.py", {"distribution", "skew", "d"}, {"n", "budget_value", "seed"}),
        ("pages/binary_product.py", {"distribution", "skew", "n", "d"}, {"budget_value", "seed"}),
        ("pages/plan_step_by_step.py", set(), {"distribution", "skew", "n", "d", "budget_value"}),
    ],
)
def test_controls_a_page_ignores_are_disabled_with_a_reason(page: str, off: set, on: set) -> None:
    at = _app(page=page)
    for key in off:
        w = _sidebar_widget(at, key)
        assert w.disabled and w.help, key
    for key in on:
        assert not _sidebar_widget(at, key).disabled, key


def test_bundled_data_disables_skew_and_gaussian_gets_its_default_skew_back() -> None:
    at = _app({"distribution": "gaussian", "skew": "1.0"})
    at.selectbox(key="distribution").set_value("bundled_digits").run()
    assert _sidebar_widget(at, "skew").disabled
    at.selectbox(key="distribution").set_value("gaussian").run()
    assert at.slider(key="skew").value == 2.0 and not _sidebar_widget(at, "skew").disabled


# ---------------------------------------------------------------------------------------------
# feedback


def test_cost_model_is_linear_in_runs_and_values() -> None:
    cfg = ExperimentConfig(
        distribution="gaussian",
        n=1000,
        d=16,
        estimators=["plan", "iome_paper"],
        repetitions=2,
        sweep={"budget": [0.25, 0.5]},
    )
    one = estimate_seconds(cfg)
    four = estimate_seconds(ExperimentConfig.from_dict({**cfg.to_dict(), "repetitions": 8}))
    assert four == pytest.approx(4 * one)
    assert seconds_per_run("plan", 2000, 64) - seconds_per_run("plan", 1000, 64) == pytest.approx(
        seconds_per_run("plan", 3000, 64) - seconds_per_run("plan", 2000, 64)
    )


def test_long_compare_run_offers_the_full_run_and_a_smaller_setting() -> None:
    # under the app limit of 2M cells: the whole sweep is predicted far above 3 s, its first
    # result (one repetition at 3 of the 5 budgets) under it, so that is drawn at once and the
    # rest offered (a first result that is itself long asks first: tests/experiments/
    # test_progressive.py)
    at = _app({"n": "7000", "d": "256"}, "pages/compare.py")
    labels = [b.label for b in at.button]
    assert any(lab.startswith("Run all 10 repetitions (≈") for lab in labels), labels
    assert "Showing 1 of 10 repetitions per point: a quick first result" in _status(at)
    assert at.get("plotly_chart")
    smaller = next(b for b in at.button if b.label.startswith("Use "))
    smaller.click().run()
    assert not at.exception
    assert (
        at.session_state["n"] < 7000
        or at.session_state["d"] < 256
        or at.session_state["cmp_reps"] < 10
    )


def _status(at: AppTest) -> str:
    return "\n".join(m.value for m in [*at.markdown, *at.caption, *at.info])


def test_a_moderate_compare_run_shows_a_first_result_then_all_repetitions_on_request() -> None:
    # no worker pool under the tests (DPMEAN_PROGRESSIVE=0): a full run over 3 s is offered, not started
    at = _app({"n": "2000", "d": "32", "cmp_reps": "20"}, "pages/compare.py")
    assert at.get("plotly_chart")  # the first result is drawn at once
    assert "Showing 1 of 20 repetitions per point: a quick first result" in _status(at)
    run_all = next(b for b in at.button if b.label.startswith("Run all 20 repetitions (≈"))
    run_all.click().run()
    assert not at.exception
    assert "Showing all 20 repetitions per point" in _status(at)
    assert "1 of 20" not in _status(at)
    assert not any(b.label.startswith("Run all") for b in at.button)


def test_a_short_compare_run_shows_all_repetitions_at_once() -> None:
    at = _app(page="pages/compare.py")
    assert "Showing all 10 repetitions per point" in _status(at)
    assert not any(b.label.startswith("Run all") for b in at.button)


# ---------------------------------------------------------------------------------------------
# words

#: Every page of the app (pages/_spec.py).
PAGES = [p.path for p in SPEC_PAGES]
FORBIDDEN = re.compile(r"spec §|specs/|\bspec\b|\b(S[1-4]|B1c?|B2|B3)\b")


def _visible_text(at: AppTest) -> str:
    parts = []
    for kind in (
        "markdown",
        "caption",
        "info",
        "warning",
        "error",
        "success",
        "title",
        "header",
        "subheader",
        "metric",
    ):
        for el in at.get(kind):
            parts += [str(getattr(el, a, "") or "") for a in ("value", "label", "help")]
    for kind in (
        "selectbox",
        "slider",
        "select_slider",
        "radio",
        "number_input",
        "multiselect",
        "checkbox",
        "button",
        "toggle",
    ):
        for w in at.get(kind):
            parts += [str(w.label), str(getattr(w, "help", "") or "")]
            parts += [str(o) for o in (getattr(w, "options", None) or [])]
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        parts.append(
            json.dumps(
                {
                    "names": [t.get("name") for t in spec.get("data", [])],
                    "layout": spec.get("layout", {}).get("title"),
                },
                ensure_ascii=False,
            )
        )
    return "\n".join(parts)


@pytest.mark.parametrize("page", PAGES)
def test_no_page_text_points_to_specs_or_internal_labels(page: str) -> None:
    at = _app({"n": "300", "d": "4", "distribution": "gaussian"}, page)
    text = _visible_text(at)
    hits = sorted({m.group(0) for m in FORBIDDEN.finditer(text)})
    assert not hits, f"{page}: {hits}"


def test_glossary_defines_every_term_the_issue_names_and_each_is_used() -> None:
    for word in (
        "IOME",
        "zCDP",
        "CKS",
        "PMWM",
        "TV",
        "oracle",
        "regret",
        "add-remove",
        "replace-one",
    ):
        assert len(define(word)) > 40
    assert "Instance-optimal mean estimation" in define("IOME")
    with pytest.raises(ValueError, match="GLOSSARY"):
        define("no such term")
    source = "\n".join(p.read_text() for p in (ROOT / "pages").glob("*.py"))
    for word in GLOSSARY:
        assert word in source, word


def test_iome_is_expanded_on_every_page_that_names_it() -> None:
    for page in ("pages/plan_step_by_step.py", "pages/compare.py"):
        at = _app(page=page)
        text = "\n".join(m.value for m in at.markdown)
        first = text.index("IOME")
        assert "instance-optimal mean estimation" in text[first : first + 200].lower(), page


OUT_OF_WIDGET = [
    ("pages/simplex.py", {"simplex_p": ("5.0", 0.65), "simplex_mech": ("cauchy", None)}),
    ("pages/winsorized.py", {"wins_shift": ("400.0", 10.0), "wins_version": ("exact", None)}),
    ("pages/plan_step_by_step.py", {"plan_p": ("3", 2), "plan_var": ("magic", "private")}),
]


@pytest.mark.parametrize(("page", "controls"), OUT_OF_WIDGET, ids=[p for p, _ in OUT_OF_WIDGET])
def test_url_values_the_widget_cannot_show_fall_back_to_the_default(
    page: str, controls: dict
) -> None:
    # url_widget checks a URL value against the widget itself (a slider's range, a radio's
    # options), so no page restates them in a ``valid=`` of its own
    at = _app({k: raw for k, (raw, _) in controls.items()}, page)
    assert not at.exception
    for key, (raw, default) in controls.items():
        value = at.session_state[key]
        assert str(value) != raw
        if default is not None:
            assert value == default


def test_fits_widget_reads_ranges_and_options_as_streamlit_takes_them() -> None:
    import streamlit as st

    from pages._url import _fits_widget

    in_slider = _fits_widget(st.slider, (0.0, 1.0), {})
    assert in_slider(0.5) and in_slider(1) and not in_slider(1.5) and not in_slider(True)
    in_box = _fits_widget(st.number_input, (), {"min_value": 2, "max_value": 50})
    assert in_box(2) and not in_box(51) and not in_box("7")
    assert _fits_widget(st.radio, (["a", "b"],), {})("b")
    assert not _fits_widget(st.selectbox, (), {"options": ["a", "b"]})("c")
    pick = _fits_widget(st.multiselect, (["a", "b"],), {})
    assert pick(["a"]) and not pick(["a", "z"]) and not pick("a")
    assert _fits_widget(st.text_input, (), {})("anything")


def _drawn(widget) -> list[str] | str:  # noqa: ANN001
    """What a browser draws for ``widget`` from this run's message alone, i.e. when it holds no
    value of its own for the widget (a fresh mount): the value the server sent (``set_value``),
    else the widget's ``default``."""
    p = widget.proto
    if type(p).__name__ == "MultiSelect":
        return list(p.raw_values) if p.set_value else [p.options[i] for i in p.default]
    return p.raw_value if p.set_value else p.options[p.default]


def test_url_bound_controls_send_their_value_on_every_run() -> None:
    # The blank estimator selector: after a rerun nothing wrote to the session (as after
    # Compare's background refinement calls st.rerun()), a URL-bound widget drawn with no
    # ``default=`` was sent with its empty default and no value, so a browser that had dropped the
    # widget's own state drew no estimators while the server held five (seen in the walk on the
    # free-lunch preset). Every run must send the value the page computes with.
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params.update(preset="free_lunch", cmp_x="n")  # a bare preset link: n = 200, d = 1
    at.run()
    at.switch_page("pages/compare.py").run()
    at.run()  # the rerun: no widget changed, nothing set in the session
    assert not at.exception
    est, x = at.multiselect(key="cmp_est"), at.selectbox(key="cmp_x")
    labels = {e.name: e.label for e in registry.all_estimators()}
    assert len(est.value) == 5
    assert _drawn(est) == [labels[v] for v in est.value]
    assert x.value == "n" and _drawn(x) == "n (rows)"
    story = at.selectbox(key="cmp_preset")
    assert story.value == "free_lunch" and _drawn(story) == "Free lunch (bounded, pure ε)"


def test_sidebar_controls_send_their_value_on_every_run() -> None:
    # A browser test saw the sidebar's number boxes at their minimums (n = 2, d = 1, ρ = 0, seed 0)
    # after a page change under load: what a browser draws for a number box that holds no value of
    # its own and is sent none (its default is its minimum). Every run must send the values.
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params.update(n="500", d="8", seed="7")
    at.run()
    at.switch_page("pages/privacy_budget.py").run()
    at.run()  # a rerun in which nothing changed
    assert not at.exception
    for key, want in (("n", 500), ("d", 8), ("seed", 7)):
        p = at.number_input(key=key).proto
        assert p.set_value and p.value == want, key
    assert at.number_input(key="budget_value").proto.set_value
