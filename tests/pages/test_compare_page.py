"""The "Compare estimators" page under streamlit.testing: runs, presets, selectors, downloads, upload."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from dpcore.experiments import ExperimentConfig
from dpcore.figures.compare import FLOOR_NAME
from tests.pages._apptest import open_page

SMALL = {"n": "500", "d": "8"}  # keep the sweeps quick


def _page(query: dict[str, str] | None = None) -> AppTest:
    return open_page("pages/compare.py", {**SMALL, **(query or {})}, timeout=180, check=True)


def _text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def _figure(at: AppTest, i: int = 0) -> dict:
    return json.loads(at.get("plotly_chart")[i].proto.spec)


def _select(at: AppTest, label_start: str):  # noqa: ANN202
    return next(w for w in at.selectbox if w.label.startswith(label_start))


def test_default_view() -> None:
    at = _page()
    assert at.title[0].value == "Compare estimators"
    fig = _figure(at)
    names = {t.get("name") for t in fig["data"]}
    assert {
        "PLAN",
        "IOME",
        FLOOR_NAME,
        "best private at this point",
        "theory: PLAN",
    } <= names
    assert fig["layout"]["xaxis"]["type"] == "log"
    text = _text(at)
    assert "At ρ = 0.5" in text and "ℓ2 error" in text  # the number in words
    assert "ranks first" in text
    assert len(at.dataframe) == 2  # the regret table and the far-off runs
    assert "far-off runs" in at.dataframe[1].value.columns
    ms = at.multiselect[0]
    assert set(ms.value) == {"empirical", "plan", "iome_paper", "gaussian_private", "pmwm_zcdp"}
    assert len(ms.options) > len(ms.value)  # every applicable estimator can be picked
    assert not at.error


def test_selectors_change_the_view() -> None:
    at = _page()
    before = _text(at)
    _select(at, "Error against").set_value("n").run()
    assert not at.exception
    fig = _figure(at)
    assert "n (rows)" in fig["layout"]["xaxis"]["title"]["text"]
    assert "At n = 500" in _text(at)
    _select(at, "Error norm").set_value("linf").run()
    assert "ℓ∞" in _text(at) and _text(at) != before
    at.multiselect[0].set_value(["empirical", "gaussian_private"]).run()
    assert not at.exception
    names = {t.get("name") for t in _figure(at)["data"]}
    assert "Gaussian mechanism" in names and "PLAN" not in names


def test_accuracy_first() -> None:
    at = _page()
    target = next(w for w in at.number_input if w.label.startswith("Target median"))
    target.set_value(0.5).run()
    assert not at.exception
    text = _text(at)
    assert "For a median ℓ2 error of 0.5" in text or "No private estimator reaches" in text
    assert "1 times" not in text


def test_presets_from_url_and_selector() -> None:
    at = _page()
    _select(at, "Story").set_value("free_lunch").run()
    assert not at.exception
    assert at.query_params["preset"] == ["free_lunch"] or at.query_params["preset"] == "free_lunch"
    names = {t.get("name") for t in _figure(at)["data"]}
    assert "Simplex (ε)" in names
    assert "ε" in _text(at)
    assert at.slider(key="cmp_reps").value == 50  # the preset's own repetitions, within the slider
    assert "Far-off runs" in _text(at) and "As published" not in _text(at)  # no PLAN here
    _select(at, "Story").set_value("sparse_binary").run()
    assert not at.exception
    assert "½ℓ1" in _text(at) or "TV" in _text(at)
    _select(at, "Story").set_value("custom").run()
    assert "preset" not in at.query_params


def test_downloads_and_upload() -> None:
    at = _page()
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download the config (JSON)" in labels
    assert "Download the data (CSV)" in labels and "Download the ranking (CSV)" in labels
    cfg_button = next(
        b for b in at.get("download_button") if b.proto.label == "Download the config (JSON)"
    )
    assert cfg_button.proto.label
    # restore a config: the sidebar uploader's callback stores the file's text in the session
    cfg = ExperimentConfig(
        name="uploaded_tiny",
        n=300,
        d=2,
        skew=0.0,
        estimators=["empirical", "gaussian_private"],
        sweep={"budget": [0.5, 1.0]},
        repetitions=3,
    )
    at.session_state["cmp_uploaded_json"] = cfg.to_json()
    at.run()
    assert not at.exception
    assert any("uploaded_tiny" in i.value for i in at.info)
    fig = _figure(at)
    assert {t.get("name") for t in fig["data"]} >= {"Gaussian mechanism"}
    assert any("n = 300, d = 2" in c.value for c in at.caption)
    # a broken file gives an error message, not a traceback
    at.session_state["cmp_uploaded_json"] = "{not json"
    at.run()
    assert not at.exception and "not valid JSON" in at.error[0].value


def test_bad_global_settings_show_error_not_traceback() -> None:
    at = _page({"d": "1", "distribution": "binary_plan", "skew": "0.5"})
    assert not at.exception


def test_preset_link_restores_the_story_on_a_fresh_session() -> None:
    # a shared link ?preset=... opened in a new session: the shell keeps page keys in the URL
    at = _page({"preset": "no_skew_tie"})
    assert at.selectbox(key="cmp_preset").value == "no_skew_tie"
    assert at.query_params["preset"] == "no_skew_tie"
    assert at.query_params["n"] == "500"  # the global keys are written beside it


def test_ranking_names_each_guarantee_and_flags_mixed_relations() -> None:
    at = _page({"distribution": "bounded", "skew": "0"})
    names = at.multiselect[0].value
    at.multiselect[0].set_value([*names, "simplex_laplace"]).run()
    assert not at.exception
    tables = [d.value for d in at.dataframe if "guarantee" in d.value.columns]
    # one ranking per guarantee (notion and relation), never one ranking across them
    assert len(tables) == 2 and all(t["guarantee"].nunique() == 1 for t in tables)
    assert {t["guarantee"].iloc[0].split(", ")[1] for t in tables} == {"replace-one", "add-remove"}
    assert all(list(t["rank"]) == list(range(1, len(t) + 1)) for t in tables)
    assert any("Side by side, not ranked together" in c.value for c in at.caption)
    # drawn without a horizontal scroll: the guarantee heads each table instead of a
    # column, "points won" reads "k of n", the long names are in each column's help
    for d in (d for d in at.dataframe if "guarantee" in d.value.columns):
        drawn = list(d.proto.column_order)
        assert drawn == [
            "rank", "label", "mean_regret", "worst_regret", "won", "failure_rate", "side by side"
        ]  # fmt: skip
        won = d.value["won"].str.fullmatch(r"\d+ of \d+")
        assert won.all() and len(d.value) >= 1
        config = json.loads(d.proto.columns)
        assert "geometric mean" in config["mean_regret"]["help"]


def test_pure_eps_budget_ranks_pure_estimators_only() -> None:
    """With the budget in ε the default selection and the ranking hold ε-DP estimators
    only; a zCDP estimator picked by hand is skipped with the reason shown, never ranked."""
    from dpcore import registry

    at = _page(
        {"unit": "eps", "budget_value": "1", "distribution": "bounded", "skew": "0", "d": "2"}
    )
    ms = at.multiselect[0]
    assert ms.value and all(registry.get(n).notion != "zcdp" for n in ms.value)
    ms.set_value([*ms.value, "gaussian_public"]).run()
    assert not at.exception
    assert any("cannot be met by a zCDP estimator" in c.value for c in at.caption)
    ranking = at.dataframe[0].value
    labels = {s.label: s.notion for s in registry.all_estimators()}
    assert {g.split(",")[0] for g in ranking["guarantee"]} == {"pure ε-DP"}
    assert all(labels[lab] == "pure" for lab in ranking["label"])


def test_preset_runs_at_the_sidebar_seed() -> None:
    """Two sidebar seeds give two different runs of a preset, and the story callout follows the run."""
    figures, callouts = [], []
    for seed in ("3", "4"):
        at = _page({"preset": "no_skew_tie", "seed": seed})
        assert at.selectbox(key="cmp_preset").value == "no_skew_tie"
        figures.append([t.get("y") for t in _figure(at)["data"]])
        callouts.append([m.value for m in (*at.success, *at.warning)])
    assert figures[0] != figures[1]
    assert callouts[0] != callouts[1]


def _all_text(at: AppTest) -> str:
    return "\n".join(
        m.value for m in [*at.markdown, *at.caption, *at.info, *at.success, *at.warning]
    )


def test_heavy_tails_explains_the_rising_error_and_names_its_floor() -> None:
    at = _page({"preset": "heavy_tails", "distribution": "contaminated", "skew": "0.0"})
    text = _all_text(at)
    assert "**Heavy tails:** 5% of the rows are outliers 20σ away" in text
    assert "its line is no floor here" in text
    names = {t.get("name") for t in _figure(at)["data"]}
    assert "non-private mean (pulled by the outliers)" in names and FLOOR_NAME not in names
    # on clean data: the sampling floor, and no note
    at = _page()
    assert "Heavy tails" not in _all_text(at)
    assert FLOOR_NAME in {t.get("name") for t in _figure(at)["data"]}


def test_one_definition_of_a_far_off_run_in_every_table() -> None:
    at = _page()
    ranking, far = at.dataframe[0].value, at.dataframe[1].value
    assert list(far.columns) == [
        "estimator", "typical median error", "far-off runs", "worst run ÷ its median", "runs"
    ]  # fmt: skip
    # the same share for the same estimator in both tables (the ranking's over the sweep too)
    by_label = dict(zip(far["estimator"], far["far-off runs"], strict=True))
    for label, share in zip(ranking["label"], ranking["failure_rate"], strict=True):
        assert by_label[label] == share, (label, share, by_label)
    text = _all_text(at)
    assert "Failure rate" not in text and "failures" not in text
    assert "far-off" in text.lower()
    # 3 significant figures: no raw 4-decimal numbers in the far-off table
    assert all(
        len(v.replace(",", "").replace(".", "").lstrip("0")) <= 3
        for v in far["typical median error"]
    )


def test_theory_is_drawn_as_medians() -> None:
    fig = _figure(_page())
    theory = [t for t in fig["data"] if str(t.get("name", "")).startswith("theory: ")]
    assert theory and all("median" in t["hovertemplate"] for t in theory)
