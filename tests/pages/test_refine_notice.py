"""The refining notice (pages/_refine.py) when the refinement failed: the page keeps its first
result and says why, instead of an hourglass that never ends, and offers to try again."""

from streamlit.testing.v1 import AppTest

TIMEOUT = 60

#: what the script's refiner reports; the test sets it and reads back the retries
STATE: dict = {"failed": None, "retried": 0, "done": False}


def _script() -> None:
    from pages._refine import refining_notice
    from tests.pages.test_refine_notice import STATE

    def retry() -> None:
        STATE["retried"] += 1
        STATE["failed"] = None

    refining_notice(
        "_notice_test",
        "token",
        "Refining in the background",
        60.0,
        done=lambda: STATE["done"],
        failed=lambda: STATE["failed"],
        retry=retry,
    )


def test_a_failed_refinement_says_why_and_offers_to_try_again():
    STATE.update(failed="BrokenProcessPool: a worker ended", retried=0, done=False)
    at = AppTest.from_function(_script, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    assert not at.info  # no hourglass
    [warning] = at.warning
    assert "The full run failed" in warning.value
    assert "BrokenProcessPool: a worker ended" in warning.value
    at.button(key="_notice_test_retry").click().run()
    assert not at.exception, at.exception
    assert STATE["retried"] == 1
    assert not at.warning and "Refining in the background" in at.info[0].value


def test_a_refinement_under_way_shows_the_notice():
    STATE.update(failed=None, retried=0, done=False)
    at = AppTest.from_function(_script, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    assert not at.warning and "Refining in the background" in at.info[0].value
