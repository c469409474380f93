"""The review rubric: criteria scored 1 to 4, each level described; admins edit the default in the admin pages.

Stored as a run-time setting (app/site, key RUBRIC_KEY) in the plain shape of DEFAULT_RUBRIC, read
back through `rubric()` into typed criteria, so a hand-edited row that does not fit is refused on save
and replaced by the default on read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypedDict

from app.interviews.errors import InterviewError

RUBRIC_KEY = "review_rubric"
LEVELS = (1, 2, 3, 4)
MAX_CRITERIA = 12
MAX_TITLE = 80
MAX_LEVEL_TEXT = 300


class StoredCriterion(TypedDict):
    """One criterion as stored in the setting (and as JSON): its id, title and the level texts 1 to 4."""

    id: str
    title: str
    levels: list[str]


DEFAULT_RUBRIC: list[StoredCriterion] = [
    {"id": "finding_bugs", "title": "Finding the bugs", "levels": [
        "Found few or none of the planted bugs, even with hints.",
        "Found some bugs, mostly by trial and error or with hints.",
        "Found most bugs with a clear line of investigation.",
        "Found every bug efficiently, reasoning from symptoms to causes.",
    ]},
    {"id": "verification", "title": "Verification method", "levels": [
        "Did not check fixes beyond running the grader.",
        "Checked some fixes with ad-hoc prints or one run.",
        "Verified most fixes with targeted experiments (shapes, loss at init, causality).",
        "Verified each fix with a test of its own and compared against a baseline.",
    ]},
    {"id": "root_cause", "title": "Root-cause explanation", "levels": [
        "No explanation, or a wrong one.",
        "Described the symptoms rather than the causes.",
        "Explained most causes correctly.",
        "Explained every cause precisely, with why the fix is right.",
    ]},
    {"id": "code_quality", "title": "Code quality", "levels": [
        "Fixes break other behaviour or obscure the code.",
        "Fixes work but are hacky or overly broad.",
        "Clean, minimal fixes.",
        "Clean, minimal fixes that make the code clearer than before.",
    ]},
    {"id": "communication", "title": "Communication", "levels": [
        "Notes missing or hard to follow.",
        "Notes list changes without reasons.",
        "Clear notes on what changed and why.",
        "Clear, concise notes a teammate could act on.",
    ]},
]


@dataclass(frozen=True)
class Criterion:
    id: str
    title: str
    levels: tuple[str, str, str, str]


def slug_for(title: str) -> str:
    """A stable criterion id from its title ("Root-cause explanation" -> "root_cause_explanation")."""
    return re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")[:40] or "criterion"


def parse(value: Any) -> list[Criterion]:
    """Typed criteria from the stored shape; InterviewError naming what is wrong."""
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_CRITERIA:
        raise InterviewError(f"A rubric has between 1 and {MAX_CRITERIA} criteria.")
    criteria: list[Criterion] = []
    for number, item in enumerate(value, start=1):
        title = str(item.get("title", "")).strip() if isinstance(item, dict) else ""
        levels = item.get("levels") if isinstance(item, dict) else None
        if not title or len(title) > MAX_TITLE:
            raise InterviewError(f"Criterion {number} needs a title of at most {MAX_TITLE} characters.")
        if not isinstance(levels, list) or len(levels) != len(LEVELS):
            raise InterviewError(f"Criterion {number} ({title}) needs a description for each of the levels 1 to 4.")
        texts = [str(text).strip() for text in levels]
        for level, text in zip(LEVELS, texts, strict=True):
            if not text or len(text) > MAX_LEVEL_TEXT:
                raise InterviewError(
                    f"Level {level} of criterion {number} ({title}) needs a description of at most "
                    f"{MAX_LEVEL_TEXT} characters.")
        criterion_id = str(item.get("id") or slug_for(title))
        if not re.fullmatch(r"[a-z0-9_]{1,40}", criterion_id):
            criterion_id = slug_for(title)
        if any(c.id == criterion_id for c in criteria):
            raise InterviewError(f"Two criteria are called {title!r}: give each a different title.")
        criteria.append(Criterion(id=criterion_id, title=title, levels=(texts[0], texts[1], texts[2], texts[3])))
    return criteria


def to_stored(criteria: list[Criterion]) -> list[StoredCriterion]:
    return [{"id": c.id, "title": c.title, "levels": list(c.levels)} for c in criteria]
