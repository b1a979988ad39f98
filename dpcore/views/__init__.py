"""One view per page: a pure function from a frozen settings record to a frozen view record.

Each module here serves one page of the app. It defines

- ``<Page>Settings``: a frozen dataclass holding the sidebar's :class:`DataSettings` (field
  ``data``) and the page's own controls, plain values only (the page's cache key);
- ``<Page>View``: a frozen dataclass with everything the page shows (numbers, frames, sentences,
  figure inputs and the notebook code), nothing computed by the page;
- ``view(settings) -> <Page>View``: the computation, using only its argument. Every random stream
  comes from ``settings.data.streams`` by name (:mod:`dpcore.streams`): the data, each estimator's
  noise, each display sample; no integer seeds two generators.

A page reads its widgets into the settings record, calls its view (cached on that record alone)
and draws the record with :mod:`dpcore.figures`. "This view as a notebook" calls the same
function. References: ``docs/architecture.md`` (Data flow).
"""

from dpcore.views.settings import DataSettings, dataset

__all__ = ["DataSettings", "dataset"]
