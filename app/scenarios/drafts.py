"""Building a draft's next package from what the editor pages send: metadata, brief, files, bugs."""

from __future__ import annotations

import re
from typing import Any, TypedDict

from app.engine.builtin import find_builtin
from app.engine.errors import PackageError
from app.engine.interfaces import DEFAULT_INTERFACE, get_interface
from app.engine.package import COMPONENTS, DEFAULT_TRAINING, DIFFICULTIES, TRAINING_KEYS, ScenarioPackage

BLANK_BRIEF = """# A new challenge

Describe what the candidate sees: the symptoms, never the answers.
"""
BLANK_QUESTIONS = [{"id": "find", "text": "How did you find the bugs?"},
                   {"id": "verify", "text": "How did you verify your fixes?"},
                   {"id": "approach", "text": "What was your approach?"}]
BUG_INDEX = re.compile(r"bugs\[(\d+)\]")
QUESTION_LINE = re.compile(r"^\s*(?P<id>[a-z0-9][a-z0-9-]{0,62})\s*:\s*(?P<text>\S.*)$")


def blank_package(*, slug: str, title: str, interface: str = DEFAULT_INTERFACE) -> ScenarioPackage:
    """The interface's template: its known-good code, default training, no bugs planted yet."""
    chosen = get_interface(interface)
    base = find_builtin(chosen.template_scenario)
    assert base is not None, f"the {chosen.template_scenario} built-in provides the template's known-good code"
    return ScenarioPackage.from_dict({
        "slug": slug, "title": title, "difficulty": "medium", "summary": "A new scenario.", "interface": chosen.name,
        "time_limit_minutes": 45, "files": list(base.files), "training": dict(DEFAULT_TRAINING),
        "questions": BLANK_QUESTIONS, "bugs": [], "brief": BLANK_BRIEF, "solution_files": dict(base.solution_files),
    })


def parse_questions(text: str) -> list[dict[str, str]]:
    """One question per line as `id: question text`."""
    questions = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        match = QUESTION_LINE.match(line)
        if match is None:
            raise PackageError(f"questions line {number}: write `id: question text` (id in lower-case letters, "
                               "digits and hyphens)")
        questions.append({"id": match["id"], "text": match["text"].strip()})
    if len({q["id"] for q in questions}) != len(questions):
        raise PackageError("questions: each id must be used once")
    return questions


def questions_text(questions: list[dict[str, str]] | tuple[dict[str, str], ...]) -> str:
    return "\n".join(f"{q['id']}: {q['text']}" for q in questions)


def parse_training(form: dict[str, str]) -> dict[str, int | float]:
    """training.<key> fields, each checked against the package format's range."""
    out: dict[str, int | float] = {}
    for key, (kind, low, high) in TRAINING_KEYS.items():
        raw = form.get(f"training.{key}", "").strip()
        try:
            value = kind(raw)
        except ValueError:
            raise PackageError(f"training.{key}: must be a {kind.__name__} from {low} to {high}") from None
        if not low <= value <= high:
            raise PackageError(f"training.{key}: must be a {kind.__name__} from {low} to {high}")
        out[key] = value
    if out["n_embd"] % out["n_head"]:
        raise PackageError("training.n_embd: must be divisible by training.n_head")
    return out


def edited(package: ScenarioPackage, form: dict[str, str]) -> ScenarioPackage:
    """The package with the edit form's metadata, brief, questions, training and solution files."""
    data = package.to_dict()
    for key in ("title", "summary"):
        value = form.get(key, "").strip()
        if not value:
            raise PackageError(f"{key}: is required")
        data[key] = value
    if form.get("difficulty") not in DIFFICULTIES:
        raise PackageError(f"difficulty: must be one of {', '.join(DIFFICULTIES)}")
    data["difficulty"] = form["difficulty"]
    try:
        data["time_limit_minutes"] = int(form.get("time_limit_minutes", ""))
    except ValueError:
        raise PackageError("time_limit_minutes: must be a whole number of minutes") from None
    if not 5 <= data["time_limit_minutes"] <= 600:
        raise PackageError("time_limit_minutes: must be from 5 to 600")
    data["brief"] = form.get("brief", "").replace("\r\n", "\n")
    if not data["brief"].strip():
        raise PackageError("brief.md: must not be empty")
    data["questions"] = parse_questions(form.get("questions", ""))
    data["training"] = parse_training(form)
    for name in package.files:
        text = form.get(f"solution/{name}")
        if text is not None:
            data["solution_files"][name] = text.replace("\r\n", "\n")
    return _rebuilt(data)


class NewBug(TypedDict):
    """A bug as the form describes it, in the package's bug shape (ScenarioPackage.to_dict's "bugs")."""

    id: str
    kind: str
    component: str
    title: str
    hints: list[str]  # three, possibly blank until checked
    explanation: dict[str, str]  # expected, detect, fix
    edits: list[dict[str, str]]  # Edit.to_dict(): file, old, new


def _rebuilt(data: dict[str, Any]) -> ScenarioPackage:
    """from_dict, with the bug named by its id when one of its edits no longer applies."""
    try:
        return ScenarioPackage.from_dict(data)
    except PackageError as exc:
        found = BUG_INDEX.search(str(exc))
        if found is None or int(found[1]) >= len(data["bugs"]):
            raise
        bug_id = data["bugs"][int(found[1])]["id"]
        raise PackageError(f"{exc} — the solution no longer contains what bug {bug_id} changes; adjust the "
                           f"code or remove bug {bug_id}") from None


def with_bug(package: ScenarioPackage, bug: NewBug) -> ScenarioPackage:
    """The package with one more bug (its edits checked again by the package loader)."""
    if bug["component"] not in COMPONENTS:
        raise PackageError(f"component: must be one of {', '.join(COMPONENTS)}")
    if any(b.id == bug["id"] for b in package.bugs):
        raise PackageError(f"id: a bug {bug['id']!r} already exists in this scenario")
    interface = get_interface(package.interface)
    for edit in bug["edits"]:
        if edit["file"] in interface.readonly_files:
            editable = ", ".join(f for f in package.files if f not in interface.readonly_files)
            raise PackageError(f"edits: {edit['file']} is read-only in {interface.name} scenarios (the scenario's "
                               f"own, never the candidate's, so a bug there could never be fixed): plant the bug "
                               f"in {editable}")
    data = package.to_dict()
    data["bugs"] = [*data["bugs"], bug]
    return _rebuilt(data)


def without_bug(package: ScenarioPackage, bug_id: str) -> ScenarioPackage:
    """The package with one bug removed (later bugs' edits must still apply)."""
    data = package.to_dict()
    data["bugs"] = [b for b in data["bugs"] if b["id"] != bug_id]
    return _rebuilt(data)
