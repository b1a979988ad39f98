"""The Privacy audit page's view (dpcore.views.privacy_audit): a pure function of its settings
record, the audit's draws from their own stream of the seed, the notebook code rebuilding the same
view, the option lists pure functions, no Streamlit."""

import subprocess
import sys
from dataclasses import replace

import pytest

from dpcore.audit import audit
from dpcore.audit.low_bits import lesson
from dpcore.streams import Streams
from dpcore.views.privacy_audit import (
    AuditSettings,
    LessonSettings,
    lesson_view,
    options,
    private_estimators,
    view,
)
from dpcore.views.settings import DataSettings

QUICK = AuditSettings(
    DataSettings(unit="eps", budget_value=1.0, seed=3), "clipped_laplace", draws=500, grid="quick"
)


@pytest.fixture(scope="module")
def quick():
    return view(QUICK)


def test_the_same_record_gives_the_same_view_and_another_seed_other_numbers(quick):
    again = view(QUICK)
    assert again.result.hits == quick.result.hits
    assert again.result.lower == pytest.approx(quick.result.lower, rel=1e-12)
    assert again.distributions_sentence == quick.distributions_sentence
    other = view(replace(QUICK, data=replace(QUICK.data, seed=4)))
    assert other.result.hits != quick.result.hits


def test_the_audit_draws_from_its_own_stream_not_the_seed(quick):
    """The old page passed the sidebar's seed itself as the audit's rng."""
    kw = dict(draws=500, confidence=0.95, grid="quick", calibrate=False)
    budget = QUICK.data.budget
    mine = audit("clipped_laplace", budget, rng=QUICK.data.streams.seq("audit"), **kw)
    assert mine.hits == quick.result.hits
    old = audit("clipped_laplace", budget, rng=QUICK.data.seed, **kw)
    assert old.hits != quick.result.hits


def test_the_float_lessons_numpy_side_has_its_own_stream():
    """The lesson drew NumPy's side from default_rng(seed), the stream the audit's minimal-n
    search also starts at seed 0."""
    lv = lesson_view(LessonSettings(seed=0, draws=500))
    mine = lesson(500, seed=Streams(0).seq("sample:float_lesson"))
    assert lv.lesson.hits["numpy"] == mine.hits["numpy"]
    assert lv.lesson.hits["numpy"]["D′"] == 0 and lv.lesson.hits["numpy"]["D"] > 50
    assert "never" in lv.words["numpy"]


def test_options_are_pure_and_name_the_pairs_and_variants():
    labels = private_estimators()
    assert "clipped_laplace" in labels and all(isinstance(v, str) for v in labels.values())
    opts = options("clipped_laplace")
    assert next(iter(opts.pair_labels)) == "worst" and len(opts.pair_labels) > 1
    assert opts.variants[0] == "honest" and len(opts.variants) > 1
    assert options("clipped_laplace") == opts


def test_the_notebook_code_rebuilds_the_same_view(quick):
    scope: dict = {}
    exec(QUICK.code(), scope)  # noqa: S102 - the page's own notebook snippet
    assert scope["r"].hits == quick.result.hits


def test_the_view_needs_no_streamlit():
    code = "import sys, dpcore.views.privacy_audit; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_summary_table_states_numbers_as_the_sentence_does():
    """The audit's summary reads 0.878, not 0.8781180731801652: floats to three significant
    figures (the sentence above it says the bound to three decimals)."""
    from dpcore.views.privacy_audit import AuditSettings, view

    v = view(AuditSettings())
    lower = next(k for k in v.summary.index if k.startswith("audited"))
    shown = v.summary.loc[lower, "value"]
    assert shown == f"{v.result.lower:.3g}" and len(shown) <= 6
    assert v.summary.loc["hits", "value"].count("/") == 1  # text cells unchanged
