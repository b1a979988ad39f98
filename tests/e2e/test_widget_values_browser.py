"""URL-bound controls in Debian's Chromium: every run's message carries the value the page computes
with, so a browser that has dropped its own copy of a widget's value still draws the right one.

After Compare's background refinement called ``st.rerun()``, the walk twice saw the
estimator selector drawn empty while the chart (and the server) held five estimators. A rerun in
which nothing wrote the widget's key sent the multiselect with its empty ``default`` and no value
(``set_value`` false); a browser that still had the value drew it, one that had dropped it drew
none. Any rerun that leaves the selector alone shows the message; here the error norm changes.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

pytestmark = pytest.mark.browser


def test_a_rerun_sends_the_estimators_the_page_computes_with(app_url, page, wait_for_app):
    sent: list = []  # every multiselect message the server sent, in order

    def on_socket(ws: object) -> None:
        def received(payload: object) -> None:
            if isinstance(payload, str):
                return
            msg = ForwardMsg()
            msg.ParseFromString(payload)
            if (
                msg.WhichOneof("type") == "delta"
                and msg.delta.WhichOneof("type") == "new_element"
                and msg.delta.new_element.WhichOneof("type") == "multiselect"
            ):
                sent.append(msg.delta.new_element.multiselect)

        ws.on("framereceived", received)  # type: ignore[attr-defined]

    page.on("websocket", on_socket)
    page.goto(f"{app_url}/compare?preset=free_lunch")  # n = 200, d = 1: a short sweep
    wait_for_app(page, timeout=180_000)
    main = page.locator("[data-testid='stMain']")
    expect(main).to_contain_text("Ranking by regret", timeout=180_000)
    selector = main.locator("[data-testid='stMultiSelect']").first
    first = [m for m in sent if m.id.endswith("-cmp_est")]
    assert first and first[-1].set_value and len(first[-1].raw_values) == 5
    # a rerun that leaves the selector alone: another error norm
    main.locator("[data-testid='stSelectbox']").nth(2).click()
    page.get_by_role("option", name="ℓ1", exact=True).click()
    page.wait_for_url("**cmp_metric=l1**", timeout=60_000)
    wait_for_app(page, timeout=180_000)
    again = [m for m in sent if m.id.endswith("-cmp_est")][len(first) :]
    assert again, "the rerun drew no estimator selector"
    for msg in again:  # the value itself, not the empty default, in every later message
        assert msg.set_value and list(msg.raw_values) == list(first[-1].raw_values)
        assert not msg.default
    for label in first[-1].raw_values:
        expect(selector).to_contain_text(label)
