"""The view on screen as a Jupyter notebook: the settings, then one section per chart with the
exact dpcore calls that drew it.

Every chart the app draws carries the code that reproduces it (its "Show the code" expander); a
page's notebook is those snippets in the order the charts were drawn, each followed by its
figure, so running it top to bottom with ``import dpcore`` gives the numbers and charts on screen
at the same settings and seed. ``tests/pages/test_notebooks.py`` executes every page's notebook
with nbclient and compares each figure's data with the page's.

Examples
--------
>>> import json
>>> text = view_notebook(
...     "Privacy budget",
...     {"seed": 0, "budget": "ρ = 0.5"},
...     [("noise", "The noise at ρ = 0.5.", "x = 1 + 1\\nfig = None\\n")],
... )
>>> nb = json.loads(text)
>>> [c["cell_type"] for c in nb["cells"]]
['markdown', 'code', 'markdown', 'code']
>>> "".join(nb["cells"][3]["source"])
'x = 1 + 1\\nfig = None\\nfig'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

__all__ = ["view_notebook"]

#: a snippet that ends by assigning ``fig`` (``fig = ...`` or ``fig, frame = ...``) shows it
_ASSIGNS_FIG = re.compile(r"^\(?fig\s*[,=)]", re.MULTILINE)

_INTRO = (
    "Made by dpmean lab from the view on screen. Each section below is one chart: its sentence, "
    "then the dpcore calls that drew it. Run the cells top to bottom (`pip install -e .` in the "
    "dpmean lab repository gives `dpcore`); with the same settings and seed the numbers match the "
    "app's. The noise comes from a seeded NumPy generator: this is a simulation, not a secure "
    "release of real data."
)


def _settings_cell(title: str, settings: Mapping[str, Any]) -> Any:
    rows = "\n".join(f"| {key} | {value} |" for key, value in settings.items())
    return new_markdown_cell(f"# {title}\n\n{_INTRO}\n\n| setting | value |\n|---|---|\n{rows}")


#: first code cell: figures draw in JupyterLab, Notebook 7 and VS Code (the plotly mimetype) and in
#: classic front ends (HTML with plotly.js inside, so the notebook also works offline)
_SETUP = 'import plotly.io as pio\n\npio.renderers.default = "plotly_mimetype+notebook"'


def _chart_cells(name: str, sentence: str, code: str) -> list[Any]:
    source = code.rstrip("\n")
    if _ASSIGNS_FIG.search(source):
        source += "\nfig"  # the cell's value: Jupyter draws the figure under it
    return [new_markdown_cell(f"## {name}\n\n{sentence}"), new_code_cell(source)]


def view_notebook(
    title: str, settings: Mapping[str, Any], charts: Sequence[tuple[str, str, str]]
) -> str:
    """A notebook (nbformat 4 JSON) reproducing a view's charts.

    Parameters
    ----------
    title : str
        The page's title (the notebook's heading).
    settings : Mapping[str, Any]
        The settings behind the view, shown as a table (the code repeats them where it uses them).
    charts : Sequence[tuple[str, str, str]]
        ``(name, sentence, code)`` per chart in the order drawn; ``code`` is the snippet that
        builds the chart's figure (ending with ``fig = ...`` or ``fig, frame = ...``).

    Returns
    -------
    str
        The notebook as JSON text, valid against the nbformat 4 schema.

    Raises
    ------
    ValueError
        If there is no chart to reproduce.
    """
    if not charts:
        raise ValueError("This view has no chart to put in a notebook; open a page with charts.")
    nb = new_notebook(
        cells=[_settings_cell(title, settings), new_code_cell(_SETUP)]
        + [cell for chart in charts for cell in _chart_cells(*chart)],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
    )
    nbformat.validate(nb)
    return str(nbformat.writes(nb))
