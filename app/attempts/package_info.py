"""What the attempts and scenarios APIs need from a scenario version's package, in one place."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.scenarios.models import ScenarioVersion

if TYPE_CHECKING:
    from app.engine.package import ScenarioPackage


@dataclass(frozen=True)
class PublicPackage:
    """The candidate-safe face of a package: starter files, brief, questions, components."""

    slug: str
    brief: str
    editable: tuple[str, ...]
    starter_files: dict[str, str]
    questions: list[dict[str, str]]  # id, text
    components: list[str]
    bugs: list[dict[str, str]]  # for interviewers: id, component, title
    time_limit_minutes: int = 45
    # Files shown but never edited or sent: the scenario's own (pipeline-v1's model.py); grading uses its copy.
    readonly: tuple[str, ...] = ()

    @property
    def question_ids(self) -> set[str]:
        return {q["id"] for q in self.questions}


_PARSED: OrderedDict[str, ScenarioPackage] = OrderedDict()
_PARSED_MAX = 64
_parsed_lock = threading.Lock()


def package_of(version: ScenarioVersion) -> ScenarioPackage:
    """The version's whole package, parsed once per content hash: parsing re-derives the starter and
    the hash, which every page would otherwise pay. The hash names the content (a draft's edit
    writes both together), so a cached package is never stale."""
    from app.engine.package import ScenarioPackage

    key = version.content_hash
    with _parsed_lock:
        cached = _PARSED.get(key) if key else None
        if cached is not None:
            _PARSED.move_to_end(key)
            return cached
    package = ScenarioPackage.from_dict(version.content)
    if key and package.content_hash == key:
        with _parsed_lock:
            _PARSED[key] = package
            while len(_PARSED) > _PARSED_MAX:
                _PARSED.popitem(last=False)
    return package


def public_package(version: ScenarioVersion) -> PublicPackage:
    """Load a version's package and keep only what may leave the server."""
    from app.engine.interfaces import INTERFACES

    package = package_of(version)
    interface = INTERFACES.get(package.interface)
    starter = {name: str(text) for name, text in dict(package.starter_files).items()}
    editable = tuple(package.files) if package.files else tuple(starter)
    questions = [{"id": str(q["id"]), "text": str(q.get("text", ""))} for q in package.questions]
    bugs = [{"id": b.id, "component": b.component, "title": b.title} for b in package.bugs]
    components = sorted({b["component"] for b in bugs})
    return PublicPackage(
        slug=str(package.slug),
        brief=str(package.brief),
        editable=editable,
        starter_files={name: starter[name] for name in editable if name in starter},
        questions=questions,
        components=components,
        bugs=bugs,
        time_limit_minutes=int(package.time_limit_minutes),
        readonly=tuple(n for n in editable if interface is not None and n in interface.readonly_files),
    )
