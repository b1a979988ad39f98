"""The example notebook reproduces the app number for number (same settings, same seed)."""

import contextlib
import io
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def _run_notebook() -> dict:
    nb = json.loads((ROOT / "assets" / "example_notebook.ipynb").read_text())
    ns: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                src = (
                    "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                )
                exec(compile(src, "example_notebook", "exec"), ns)  # noqa: S102
    return ns


def test_notebook_matches_the_pages():
    ns = _run_notebook()
    est, frame = ns["est"], ns["frame"]

    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page("pages/plan_step_by_step.py").run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Clip radius C (scaled space)"] == f"{est.diagnostics.clip_radius:.2f}"
    assert metrics["ℓ2 error of the private mean"] == f"{ns['plan_error']:.3g}"  # the page's format
    assert metrics["Rows clipped (of 2,000)"].startswith(f"{int(est.diagnostics.clipped.sum())} ")

    at.switch_page("pages/compare.py").run()
    assert not at.exception
    full = [b for b in at.button if b.label.startswith("Run all")]
    if full:  # a long sweep shows a quick first result until the full run is asked for
        full[0].click().run()
    text = " ".join(m.value for m in at.markdown)
    plan_at_half = frame[(frame.estimator == "plan") & np.isclose(frame.budget, 0.5)][
        "err_l2"
    ].median()
    assert f"{plan_at_half:.3g}" in text  # the page reports medians
