"""Code that looks at or changes the machinery around it: frame walking, gc, inspect, patching torch.

None of this is needed to fix a model, and all of it is how a submission would try to read the
grader's expected values or make its checks pass. A finding is evidence with its file and line; the
interviewer judges (a candidate may have used `inspect` innocently while exploring).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

FRAME_ATTRIBUTES = frozenset({"f_back", "f_globals", "f_locals", "f_code", "f_builtins", "tb_frame", "gi_frame",
                              "cr_frame", "__globals__", "__code__", "__closure__", "__subclasses__", "__builtins__"})
FRAME_CALLS = {("sys", "_getframe"), ("sys", "settrace"), ("sys", "setprofile"), ("sys", "modules"),
               ("sys", "_current_frames"), ("traceback", "extract_stack"), ("traceback", "walk_stack"),
               ("traceback", "format_stack"), ("builtins", "__import__")}
MODULE_KINDS = {"gc": "gc", "inspect": "inspect", "ctypes": "import_machinery", "importlib": "import_machinery",
                "builtins": "import_machinery"}
PATCHED_LIBRARIES = frozenset({"torch", "numpy", "math", "random", "builtins"})
KIND_TITLES = {
    "frame_walking": "Walks the call stack or reads frames and globals",
    "gc": "Searches live objects with gc",
    "inspect": "Uses inspect",
    "monkeypatch": "Replaces attributes of torch or another library",
    "import_machinery": "Touches the import system or builtins",
}
_REGEX_FALLBACK = [
    ("frame_walking", re.compile(r"\b(sys\._getframe|f_back|f_globals|f_locals|tb_frame|__globals__)\b")),
    ("gc", re.compile(r"\bimport\s+gc\b|\bgc\.\w+")),
    ("inspect", re.compile(r"\bimport\s+inspect\b|\binspect\.\w+")),
    ("monkeypatch", re.compile(r"\b(torch|F|nn|np|numpy)(\.\w+)+\s*=[^=]")),
]


@dataclass(frozen=True)
class Finding:
    kind: str
    file: str
    line: int
    code: str

    @property
    def title(self) -> str:
        return KIND_TITLES[self.kind]


class _Scanner(ast.NodeVisitor):
    def __init__(self, name: str, lines: list[str]) -> None:
        self.name, self.lines = name, lines
        self.aliases: dict[str, str] = {}  # local name -> top-level module
        self.found: list[Finding] = []

    def _add(self, kind: str, node: ast.AST) -> None:
        line = getattr(node, "lineno", 0)
        code = self.lines[line - 1].strip()[:160] if 0 < line <= len(self.lines) else ""
        self.found.append(Finding(kind=kind, file=self.name, line=line, code=code))

    def _root(self, node: ast.AST) -> str | None:
        while isinstance(node, ast.Attribute | ast.Subscript):
            node = node.value
        return self.aliases.get(node.id) if isinstance(node, ast.Name) else None

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            top = alias.name.split(".")[0]
            self.aliases[alias.asname or top] = top
            if top in MODULE_KINDS:
                self._add(MODULE_KINDS[top], node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        top = (node.module or "").split(".")[0]
        for alias in node.names:
            self.aliases[alias.asname or alias.name] = top
            if (top, alias.name) in FRAME_CALLS:
                self._add("frame_walking", node)
        if top in MODULE_KINDS:
            self._add(MODULE_KINDS[top], node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        root = self._root(node.value)
        if node.attr in FRAME_ATTRIBUTES or (root, node.attr) in FRAME_CALLS:
            self._add("frame_walking", node)
        elif root in ("gc", "inspect"):
            self._add(root, node)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in ("__import__", "__builtins__"):
            self._add("import_machinery", node)

    def _targets(self, targets: list[ast.expr], node: ast.AST) -> None:
        for target in targets:
            if isinstance(target, ast.Attribute | ast.Subscript) and self._root(target) in PATCHED_LIBRARIES:
                self._add("monkeypatch", node)

    def visit_Assign(self, node: ast.Assign) -> None:
        self._targets(node.targets, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._targets([node.target], node)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        self._targets(node.targets, node)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = node.func.id if isinstance(node.func, ast.Name) else ""
        if name in ("setattr", "delattr") and node.args and self._root(node.args[0]) in PATCHED_LIBRARIES:
            self._add("monkeypatch", node)
        self.generic_visit(node)


def scan_file(name: str, source: str) -> list[Finding]:
    """Findings in one file, in line order (a regex pass when the file does not parse)."""
    lines = source.splitlines()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        found = [Finding(kind=kind, file=name, line=n, code=text.strip()[:160])
                 for n, text in enumerate(lines, start=1) for kind, pattern in _REGEX_FALLBACK if pattern.search(text)]
        return found
    scanner = _Scanner(name, lines)
    scanner.visit(tree)
    unique = {(f.kind, f.line): f for f in scanner.found}
    return sorted(unique.values(), key=lambda f: (f.line, f.kind))
