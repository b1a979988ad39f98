"""Test-wide settings: page tests see complete results at once (no progressive refinement, whose
first result is replaced a few seconds later); tests/pages/test_classroom.py turns it on."""

import os

os.environ.setdefault("DPMEAN_PROGRESSIVE", "0")
