"""Colour-blind safety of the estimators' fixed colours: the main estimators of every data
kind and budget unit stay apart under simulated deuteranopia (Machado, Oliveira and Fernandes 2009,
severity 1), measured as CIELAB ΔE76 between the simulated colours."""

import itertools

import numpy as np
import pytest

from dpcore.experiments import default_estimators
from dpcore.experiments.presets import PRESETS
from dpcore.registry import get

#: Machado et al. (2009) deuteranopia simulation, severity 1.0, on linear RGB.
MACHADO_DEUTERANOPIA = np.array(
    [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ]
)
#: ΔE76 = 15 is clearly distinct side by side (2.3 is a just-noticeable difference); IOME and the
#: Gaussian mechanism were 13.3 apart before the change.
MIN_DELTA_E = 15.0


def _linear(hex_color: str) -> np.ndarray:
    c = np.array([int(hex_color[k : k + 2], 16) for k in (1, 3, 5)]) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(rgb_linear: np.ndarray) -> np.ndarray:
    xyz = (
        np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
        @ rgb_linear
    )
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(a: str, b: str) -> float:
    """CIELAB ΔE76 between two colours as they are (normal vision)."""
    return float(np.linalg.norm(_lab(_linear(a)) - _lab(_linear(b))))


def deuteranopia_delta_e(a: str, b: str) -> float:
    sa, sb = (np.clip(MACHADO_DEUTERANOPIA @ _linear(c), 0, 1) for c in (a, b))
    return float(np.linalg.norm(_lab(sa) - _lab(sb)))


def test_simulation_separates_and_merges_as_expected():
    # red and green collapse under deuteranopia; blue and orange stay apart
    assert deuteranopia_delta_e("#d62728", "#2ca02c") < 0.5 * deuteranopia_delta_e(
        "#0072B2", "#E69F00"
    )
    assert deuteranopia_delta_e("#0072B2", "#0072B2") == 0.0


@pytest.mark.parametrize("kind", ["real", "bounded", "binary"])
@pytest.mark.parametrize("unit", ["rho", "eps"])
def test_main_estimators_differ_under_deuteranopia(kind, unit):
    names = default_estimators(kind, unit, 8)
    worst = min(
        (
            (deuteranopia_delta_e(get(a).color, get(b).color), a, b)
            for a, b in itertools.combinations(names, 2)
        ),
        default=(np.inf, "", ""),
    )
    assert worst[0] >= MIN_DELTA_E, worst


def test_iome_and_gaussian_mechanism_differ_under_deuteranopia():
    assert (
        deuteranopia_delta_e(get("iome_paper").color, get("gaussian_private").color) >= MIN_DELTA_E
    )


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_lines_shown_together_on_a_preset_differ(preset):
    """Every pair of estimators a Compare preset draws together stays apart, in normal vision and
    under deuteranopia (the free-lunch preset drew two near-identical oranges before)."""
    names = [
        e if isinstance(e, str) else e["name"] for e in PRESETS[preset].experiment().estimators
    ]
    colours = {nm: get(nm).color for nm in names}
    worst = min(
        (
            (
                min(deuteranopia_delta_e(colours[a], colours[b]), delta_e(colours[a], colours[b])),
                a,
                b,
            )
            for a, b in itertools.combinations(names, 2)
        ),
        default=(np.inf, "", ""),
    )
    assert worst[0] >= MIN_DELTA_E, worst
