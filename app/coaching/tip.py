"""A coaching tip before it is stored: the suggestion block's shape plus where it came from."""

from __future__ import annotations

from dataclasses import dataclass, replace

from typing_extensions import TypedDict  # what pydantic needs to describe one on Python 3.11


@dataclass(frozen=True)
class Tip:
    """A framing sentence, a pro tip and three to five steps, answering a note (`note`: its question id) or not.

    `rules` are the ids of app.coaching.rules.RULES that produced it; `why` says in a few words what in
    the note and the grading triggered each rule (for reviewers; it never names a test or a fix).
    """

    note: str | None
    component: str | None
    framing: str
    pro_tip: str
    steps: tuple[str, ...]
    rules: tuple[str, ...] = ()
    why: tuple[str, ...] = ()
    source: str = "rules"  # or "llm:<model>"

    def texts(self) -> tuple[str, ...]:
        """Every text a candidate reads."""
        return (self.framing, self.pro_tip, *self.steps)

    def with_rules(self, *extra: str) -> Tip:
        return replace(self, rules=tuple(dict.fromkeys(self.rules + extra)))


class ShownTip(TypedDict):
    """A stored tip as the API, the pages and the interviewer review show it (CONTRACTS.md: tips in an
    attempt). A JSON object of the attempt API, so a dictionary with these keys rather than an object.

    `note` is the question id of the note it answers, or None, and `question` that question's text;
    `component` one of the six, or None; `steps` 3-5 strings; `notice` the AI notice, verbatim; `source`
    "rules" or "llm:<model>"; `rules` ids of app.coaching.rules.RULES and `why` what triggered them;
    `rating` the candidate's: True helpful, False not helpful, None not rated.
    """

    id: int
    note: str | None
    question: str | None
    component: str | None
    framing: str
    pro_tip: str
    steps: list[str]
    notice: str
    source: str
    rules: list[str]
    why: list[str]
    rating: bool | None
