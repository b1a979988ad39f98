"""Test-wide settings: page tests see complete results at once (no progressive refinement, whose
first result is replaced a few seconds later); tests/pages/test_classroom.py turns it on. Plotly
validates every figure object the builders make (dpcore.figures.style.VALIDATE), so a misspelt
property fails the tests that draw it; tests/pages/test_unvalidated_figures.py checks that the app's
unvalidated figures are the same bytes."""

import os

os.environ.setdefault("DPMEAN_PROGRESSIVE", "0")
os.environ.setdefault("DPMEAN_VALIDATE_FIGURES", "1")
