"""References in the code resolve inside this repository, and the code names no issue numbers.

* No ``.py`` file of ``dpcore/``, ``pages/`` or ``app.py`` cites ``specs/...`` (the estimator pages
  live under ``docs/estimators/``; ``docs/references.md`` explains the section anchors).
* None of them, and no ``.py`` or ``.md`` file of ``tests/`` or ``benchmarks/`` (this file aside:
  it has to spell the pattern out), mentions an issue number (``issue 12``, ``issues 15 and 18``,
  ``issue #7``): what an issue meant belongs in the comment in a few words, its history in the
  commit messages.
* Every ``docs/....md`` path the code names is a file of this repository (``tests/repo/test_docs.py``
  checks the ``§`` sections against the built site's anchors).

Strings shown to users are not comments: the exceptions below name each one and why it stays.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: (file, exact text, reason) for the matches that are allowed to stay.
EXCEPTIONS: list[tuple[str, str, str]] = []

# specs/ and the design notes live outside this repository; the code cites docs/ instead
_SPECS = re.compile(r"specs/[A-Za-z0-9_.-]*|DESIGN\.md")
# "issue 12", "Issues 15 and 18", "issue #7", and a number carried over a comment's line break
_ISSUE = re.compile(r"\b[Ii]ssues?\s*(?:#:?\s*)?#?\d+")
_DOCS_PATH = re.compile(r"\bdocs/[A-Za-z0-9_./-]*?\.md\b")


def _code_files() -> list[Path]:
    files = [ROOT / "app.py"]
    for folder in ("dpcore", "pages"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return [f for f in files if f.is_file()]


def _issue_files() -> list[Path]:
    """The code files, and the tests' and benchmarks' sources and notes (not this file)."""
    files = _code_files()
    for folder in ("tests", "benchmarks"):
        for ext in ("*.py", "*.md"):
            files += sorted((ROOT / folder).rglob(ext))
    me = Path(__file__).resolve()
    return [f for f in files if f.is_file() and f.resolve() != me]


def _allowed(rel: str, text: str, start: int, end: int) -> bool:
    for path, snippet, _reason in EXCEPTIONS:
        if path != rel:
            continue
        at = text.find(snippet)
        while at != -1:
            if at <= start and end <= at + len(snippet):
                return True
            at = text.find(snippet, at + 1)
    return False


def _matches(pattern: re.Pattern[str], files: list[Path]) -> list[str]:
    found = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        for m in pattern.finditer(text):
            if not _allowed(rel, text, m.start(), m.end()):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{rel}:{line}: {m[0]!r}")
    return found


def test_no_specs_references() -> None:
    bad = _matches(_SPECS, _code_files())
    assert not bad, (
        "cite docs/estimators/<page>.md §<section> instead (docs/references.md):\n" + "\n".join(bad)
    )


def test_no_issue_numbers() -> None:
    bad = _matches(_ISSUE, _issue_files())
    assert not bad, "say what the issue meant in a few words, or cite a docs page:\n" + "\n".join(
        bad
    )


def test_named_docs_pages_exist() -> None:
    seen, missing = 0, []
    for path in _code_files():
        text = path.read_text(encoding="utf-8")
        for m in _DOCS_PATH.finditer(text):
            seen += 1
            if not (ROOT / m[0]).is_file():
                line = text.count("\n", 0, m.start()) + 1
                missing.append(f"{path.relative_to(ROOT)}:{line}: {m[0]}")
    assert seen > 0, "found no docs/....md paths in the code (has their form changed?)"
    assert not missing, "no such file:\n" + "\n".join(missing)


def test_exceptions_are_still_needed() -> None:
    """An exception whose text is gone (fixed) is removed from the list, so none hides a new one."""
    stale = [
        f"{path}: {snippet!r}"
        for path, snippet, _reason in EXCEPTIONS
        if snippet not in (ROOT / path).read_text(encoding="utf-8")
    ]
    assert not stale, "remove these from EXCEPTIONS:\n" + "\n".join(stale)
