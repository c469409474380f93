"""Scenario packages: scenario.toml + brief.md + solution/, loaded from a directory, a zip or JSON."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.engine.edits import Edit, apply_edits, edits_from_diff
from app.engine.errors import PackageError
from app.engine.fields import TomlFields, bug_line
from app.engine.interfaces import get_interface, interface_names
from app.engine.zipimport import MAX_ZIP_BYTES, read_package_zip

# The last four are the training pipeline's (pipeline-v1): its data, optimizer, evaluation and checkpoints.
COMPONENTS = ("loss", "positional", "attention", "general", "training", "generation", "data", "optimizer", "evaluation",
              "checkpoint")
DIFFICULTIES = ("easy", "medium", "hard")
TRAINING_KEYS: dict[str, tuple[type, float, float]] = {  # key: (type, min, max)
    "steps": (int, 10, 2000), "batch_size": (int, 1, 128), "block_size": (int, 4, 128),
    "n_layer": (int, 1, 8), "n_head": (int, 1, 16), "n_embd": (int, 8, 256),
    "learning_rate": (float, 1e-6, 1.0), "seed": (int, 0, 2**31 - 1),
}
# Training settings are numbers: the int ones stay ints (TRAINING_KEYS), learning_rate is a float.
DEFAULT_TRAINING: dict[str, float] = {
    "steps": 200, "batch_size": 16, "block_size": 32, "n_layer": 2, "n_head": 4, "n_embd": 48,
    "learning_rate": 3e-3, "seed": 1337,
}


@dataclass(frozen=True)
class Bug:
    """One planted bug: what it is, how to hint at it, and the edits that plant it."""

    id: str
    kind: str
    component: str
    title: str
    hints: tuple[str, str, str]
    explanation: dict[str, str]
    edits: tuple[Edit, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "component": self.component, "title": self.title,
                "hints": list(self.hints), "explanation": dict(self.explanation),
                "edits": [e.to_dict() for e in self.edits]}


@dataclass(frozen=True)
class ScenarioPackage:
    """A whole scenario version; starter_files is derived (solution + every bug's edits)."""

    slug: str
    title: str
    difficulty: str
    summary: str
    interface: str
    time_limit_minutes: int
    files: tuple[str, ...]
    training: dict[str, float]
    questions: tuple[dict[str, str], ...]
    bugs: tuple[Bug, ...]
    brief: str
    solution_files: dict[str, str]
    starter_files: dict[str, str] = field(default_factory=dict)
    content_hash: str = ""

    @property
    def version(self) -> str:
        """Short, stable version label derived from the content."""
        return self.content_hash[:12]

    def bug(self, bug_id: str) -> Bug:
        for bug in self.bugs:
            if bug.id == bug_id:
                return bug
        raise KeyError(bug_id)

    def mutant_files(self, bug_id: str) -> dict[str, str]:
        """The solution with only this bug planted."""
        bug = self.bug(bug_id)
        return apply_edits(self.solution_files, list(bug.edits), where=f"bugs[{bug_id}]")

    def to_dict(self) -> dict[str, Any]:
        """Everything needed to rebuild the package (the starter is derived again on load)."""
        return {"slug": self.slug, "title": self.title, "difficulty": self.difficulty,
                "summary": self.summary, "interface": self.interface,
                "time_limit_minutes": self.time_limit_minutes, "files": list(self.files),
                "training": dict(self.training), "questions": [dict(q) for q in self.questions],
                "bugs": [b.to_dict() for b in self.bugs], "brief": self.brief,
                "solution_files": dict(self.solution_files), "content_hash": self.content_hash}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScenarioPackage:
        """Rebuild from to_dict() output (e.g. a database JSON column)."""
        bugs = tuple(
            Bug(id=b["id"], kind=b["kind"], component=b["component"], title=b["title"],
                hints=tuple(b["hints"]), explanation=dict(b["explanation"]),
                edits=tuple(Edit(**e) for e in b["edits"]))
            for b in data["bugs"]
        )
        return _finish(cls(
            slug=data["slug"], title=data["title"], difficulty=data["difficulty"], summary=data["summary"],
            interface=data["interface"], time_limit_minutes=int(data["time_limit_minutes"]),
            files=tuple(data["files"]), training=dict(data["training"]),
            questions=tuple(dict(q) for q in data["questions"]), bugs=bugs, brief=data["brief"],
            solution_files=dict(data["solution_files"]),
        ))


def _hash(pkg: ScenarioPackage) -> str:
    body = pkg.to_dict()
    body.pop("content_hash")
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _finish(pkg: ScenarioPackage) -> ScenarioPackage:
    """Check the edits apply (each alone and all together) and derive starter and hash."""
    for n, bug in enumerate(pkg.bugs):
        apply_edits(pkg.solution_files, list(bug.edits), where=f"scenario.toml: bugs[{n}]")
    starter = dict(pkg.solution_files)
    for n, bug in enumerate(pkg.bugs):
        starter = apply_edits(starter, list(bug.edits), where=f"scenario.toml: bugs[{n}] (on top of earlier bugs)")
    object.__setattr__(pkg, "starter_files", starter)
    object.__setattr__(pkg, "content_hash", _hash(pkg))
    return pkg


@functools.lru_cache(maxsize=128)
def _toml_document(raw: str) -> dict[str, object]:
    """scenario.toml parsed once per text: every sync of the built-ins and every lookup of one parses them
    all again (21 documents, about 50 ms of tomllib a time). Callers get a copy, never this one."""
    return tomllib.loads(raw)


def parse_package(files: dict[str, str]) -> ScenarioPackage:
    """Build a package from relative path -> text (scenario.toml, brief.md, solution/...)."""
    if "scenario.toml" not in files:
        raise PackageError("scenario.toml: file is missing")
    if "brief.md" not in files:
        raise PackageError("brief.md: file is missing")
    raw = files["scenario.toml"]
    try:
        doc = copy.deepcopy(_toml_document(raw))
    except tomllib.TOMLDecodeError as exc:
        raise PackageError(f"scenario.toml: {exc}") from None
    f = TomlFields(doc, raw)
    solution = {p[len("solution/"):]: t for p, t in files.items() if p.startswith("solution/")}
    # The interface (app/engine/interfaces.py) says which candidate files a scenario may list.
    interface = get_interface(f.choice("interface", interface_names()))
    names = f.str_list("files", allowed=interface.allowed_files, owner=interface.name)
    for name in names:
        if name not in solution:
            raise PackageError(f"solution/{name}: file is missing (listed in scenario.toml: files)")
    for name in solution:
        if name not in names:
            raise PackageError(f"solution/{name}: not listed in scenario.toml: files")
    training = dict(DEFAULT_TRAINING)
    training.update(f.training(TRAINING_KEYS))
    questions = tuple(f.questions())
    bugs = []
    for n, table in enumerate(f.table_list("bugs", required=True)):
        where = f"bugs[{n}]"
        line = bug_line(raw, n)
        b = TomlFields(table, raw, prefix=where, line=line)
        if "diff" in table and "edits" in table:
            raise PackageError(f"scenario.toml:{line}: {where}: give either edits or diff, not both")
        if "diff" in table:
            edits = edits_from_diff(b.string("diff"), solution, where=f"scenario.toml:{line}: {where}")
        else:
            edits = [Edit(e["file"], e["old"], e["new"]) for e in b.edit_list("edits")]
        for edit in edits:
            if edit.file in interface.readonly_files:
                raise PackageError(f"scenario.toml:{line}: {where}: {edit.file} is read-only in {interface.name} "
                                   "scenarios (the scenario's own, never the candidate's): plant the bug in another "
                                   "file")
        bugs.append(Bug(
            id=b.slug("id"), kind=b.slug("kind"), component=b.choice("component", COMPONENTS),
            title=b.string("title"), hints=b.hints("hints"), explanation=b.explanation("explanation"),
            edits=tuple(edits),
        ))
    ids = [bug.id for bug in bugs]
    if len(set(ids)) != len(ids):
        raise PackageError("scenario.toml: bugs[].id: ids must be unique")
    return _finish(ScenarioPackage(
        slug=f.slug("slug"), title=f.string("title"), difficulty=f.choice("difficulty", DIFFICULTIES),
        summary=f.string("summary"), interface=interface.name,
        time_limit_minutes=f.integer("time_limit_minutes", 5, 600), files=tuple(names),
        training=training, questions=questions, bugs=tuple(bugs), brief=files["brief.md"],
        solution_files=solution,
    ))


def load_package(path: str | Path) -> ScenarioPackage:
    """Load a package directory (or a .zip file)."""
    path = Path(path)
    if path.is_file() and path.suffix == ".zip":
        return load_zip(path.read_bytes())
    if not (path / "scenario.toml").is_file():
        raise PackageError(f"{path}: not a scenario package (scenario.toml is missing)")
    files: dict[str, str] = {}
    for name in ("scenario.toml", "brief.md"):
        if (path / name).is_file():
            files[name] = _read_text(path / name, name)
    solution_dir = path / "solution"
    if solution_dir.is_dir():
        for p in sorted(solution_dir.iterdir()):
            if p.is_file() and not p.name.startswith(".") and p.suffix == ".py":
                files[f"solution/{p.name}"] = _read_text(p, f"solution/{p.name}")
    return parse_package(files)


def _read_text(path: Path, name: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PackageError(f"{name}: not valid UTF-8 text") from None


def load_zip(data: bytes, *, max_zip_bytes: int = MAX_ZIP_BYTES) -> ScenarioPackage:
    """Check and parse a zipped package (app.engine.zipimport has the safety rules); `max_zip_bytes`
    bounds the archive and, separately, its unpacked content."""
    return parse_package(read_package_zip(data, max_zip_bytes=max_zip_bytes))
