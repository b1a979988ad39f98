"""Compare's "Restore a comparison config": the uploaded config's estimators (with their
parameters) replace the page's earlier picks, visibly; removing the file brings the page's own
choice back."""

from __future__ import annotations

import json

from dpcore import registry
from dpcore.experiments import ExperimentConfig
from tests.pages._apptest import open_page

SMALL = {"n": "300", "d": "2"}


def test_an_uploaded_config_replaces_the_earlier_estimator_picks():
    # audit 2026-11b F6: after an earlier Compare view the page said it used the upload but
    # compared the session's earlier picks, leaving out the config's own estimators
    at = open_page("pages/compare.py", SMALL, timeout=240, check=True)
    at.multiselect(key="cmp_est").set_value(["plan"]).run()
    assert not at.exception, at.exception
    cfg = ExperimentConfig(
        name="steps",
        n=300,
        d=2,
        estimators=[{"name": "iome_original", "params": {"steps": 30}}, "empirical"],
        sweep={"budget": [0.5, 1.0]},
        repetitions=2,
    )
    at.session_state["cmp_uploaded_json"] = cfg.to_json()
    at.run()
    assert not at.exception, at.exception
    assert at.multiselect(key="cmp_est").value == ["iome_original", "empirical"]
    info = " ".join(i.value for i in at.info)
    assert "iome_original (steps=30)" in info and "replace the estimator choice" in info
    names = {t.get("name") for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]}
    assert registry.get("iome_original").label in names
    assert registry.get("plan").label not in names
    # the file removed: the page's own choice again (its default, not the upload's)
    at.session_state["cmp_uploaded_json"] = None
    at.run()
    assert not at.exception, at.exception
    assert at.multiselect(key="cmp_est").value != ["iome_original", "empirical"]
