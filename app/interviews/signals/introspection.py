"""Code that looks at or changes the machinery around it: frame walking, gc, inspect, patching torch,
code run from strings (exec, eval, compile, marshal), payloads hidden behind base64, codecs or hex,
ctypes, exit hooks and hard exits.

None of this is needed to fix a model, and all of it is how a submission would try to read the
grader's expected values or make its checks pass. A finding is evidence with its file and line; the
interviewer judges (a candidate may have used `inspect` innocently while exploring). A string the code
decodes in plain sight (base64, rot13, hex) is decoded here and read like the file, so hiding a payload
that way hides nothing.
"""

from __future__ import annotations

import ast
import base64
import binascii
import codecs
import re
from dataclasses import dataclass

FRAME_ATTRIBUTES = frozenset({"f_back", "f_globals", "f_locals", "f_code", "f_builtins", "tb_frame", "gi_frame",
                              "cr_frame", "__globals__", "__code__", "__closure__", "__subclasses__", "__builtins__"})
FRAME_CALLS = {("sys", "_getframe"), ("sys", "settrace"), ("sys", "setprofile"), ("sys", "modules"),
               ("sys", "_current_frames"), ("traceback", "extract_stack"), ("traceback", "walk_stack"),
               ("traceback", "format_stack"), ("builtins", "__import__")}
MODULE_KINDS = {"gc": "gc", "inspect": "inspect", "ctypes": "ctypes", "importlib": "import_machinery",
                "builtins": "import_machinery", "marshal": "dynamic_code", "atexit": "exit_hook"}
PATCHED_LIBRARIES = frozenset({"torch", "numpy", "math", "random", "builtins", "json", "io", "os", "sys", "codecs",
                               "pickle", "threading", "atexit"})
DYNAMIC_CODE = frozenset({"exec", "eval", "compile"})
# (module, function) that turn an encoded string into text or bytes; the argument is decoded here too.
DECODERS = {("base64", "b64decode"), ("base64", "b32decode"), ("base64", "b85decode"), ("base64", "a85decode"),
            ("base64", "decodebytes"), ("base64", "urlsafe_b64decode"), ("base64", "standard_b64decode"),
            ("codecs", "decode"), ("binascii", "unhexlify"), ("binascii", "a2b_base64"), ("zlib", "decompress")}
EXITS = {("os", "_exit"), ("os", "kill"), ("os", "killpg"), ("os", "abort"), ("signal", "signal")}
HOOKS = {("atexit", "register"), ("sys", "excepthook"), ("threading", "excepthook"), ("sys", "addaudithook")}
KIND_TITLES = {
    "frame_walking": "Walks the call stack or reads frames, globals or sys.modules",
    "gc": "Searches live objects with gc",
    "inspect": "Uses inspect",
    "monkeypatch": "Replaces attributes of torch or another library",
    "import_machinery": "Touches the import system or builtins",
    "dynamic_code": "Runs code built at run time (exec, eval, compile, marshal)",
    "encoded_payload": "Decodes a hidden string (base64, codecs, hex)",
    "ctypes": "Calls C functions through ctypes",
    "exit_hook": "Registers code to run at exit or on errors",
    "process_exit": "Ends or signals processes directly (os._exit, os.kill)",
}
_MAX_DECODED = 200_000
_MAX_DEPTH = 3
_REGEX_FALLBACK = [
    ("frame_walking", re.compile(r"\b(sys\._getframe|f_back|f_globals|f_locals|tb_frame|__globals__)\b")),
    ("gc", re.compile(r"\bimport\s+gc\b|\bgc\.\w+")),
    ("inspect", re.compile(r"\bimport\s+inspect\b|\binspect\.\w+")),
    ("monkeypatch", re.compile(r"\b(torch|F|nn|np|numpy)(\.\w+)+\s*=[^=]")),
    ("dynamic_code", re.compile(r"\b(exec|eval|compile)\s*\(|\bmarshal\b")),
    ("encoded_payload", re.compile(r"\b(b64decode|b85decode|b32decode|a85decode|unhexlify|fromhex)\b|codecs\.decode")),
    ("ctypes", re.compile(r"\bctypes\b")),
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


def _literal(node: ast.AST | None) -> str | bytes | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes) else None


def _decoded(module: str, function: str, call: ast.Call) -> str | None:
    """The text a decoder call turns its literal argument into, when it can be read here."""
    data = _literal(call.args[0]) if call.args else None
    if data is None:
        return None
    try:
        if module == "codecs":
            encoding = _literal(call.args[1]) if len(call.args) > 1 else None
            if isinstance(encoding, str) and isinstance(data, str):
                text: object = codecs.decode(data, encoding)  # type: ignore[call-overload]
                return text.decode("utf-8", errors="replace") if isinstance(text, bytes) else str(text)
            return None
        raw = data.encode() if isinstance(data, str) else data
        if module == "base64":
            decoder = getattr(base64, function)
            out = decoder(raw)
        elif module == "binascii":
            out = binascii.unhexlify(raw) if function == "unhexlify" else binascii.a2b_base64(raw)
        else:
            import zlib

            out = zlib.decompress(raw)
        return out.decode("utf-8", errors="replace")
    except Exception:  # a string that does not decode hides nothing readable: the call itself is the finding
        return None


class _Scanner(ast.NodeVisitor):
    def __init__(self, name: str, lines: list[str], depth: int = 0, at: int | None = None) -> None:
        self.name, self.lines = name, lines
        self.depth, self.at = depth, at  # inside a decoded string: the line of the call that decodes it
        self.aliases: dict[str, str] = {}  # local name -> top-level module
        self.found: list[Finding] = []

    def _add(self, kind: str, node: ast.AST) -> None:
        line = getattr(node, "lineno", 0)
        code = self.lines[line - 1].strip()[:160] if 0 < line <= len(self.lines) else ""
        if self.at is not None:
            line, code = self.at, f"(decoded) {code}"[:160]
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

    def _call_target(self, func: ast.expr) -> tuple[str | None, str]:
        """(module, function) of a call like `base64.b64decode(...)` or `b64decode(...)` imported by name."""
        if isinstance(func, ast.Attribute):
            return self._root(func.value), func.attr
        if isinstance(func, ast.Name):
            return self.aliases.get(func.id), func.id
        return None, ""

    def visit_Call(self, node: ast.Call) -> None:
        name = node.func.id if isinstance(node.func, ast.Name) else ""
        module, function = self._call_target(node.func)
        if name in ("setattr", "delattr") and node.args and self._root(node.args[0]) in PATCHED_LIBRARIES:
            self._add("monkeypatch", node)
        if name in DYNAMIC_CODE and module is None:
            self._add("dynamic_code", node)
        if name == "getattr" and len(node.args) > 1:
            attr = _literal(node.args[1])
            if isinstance(attr, str) and (attr in FRAME_ATTRIBUTES or (self._root(node.args[0]), attr) in FRAME_CALLS):
                self._add("frame_walking", node)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "fromhex":
            self._add("encoded_payload", node)
        if (module, function) in EXITS:
            self._add("process_exit", node)
        if (module, function) in HOOKS:
            self._add("exit_hook", node)
        if (module, function) in DECODERS:
            self._add("encoded_payload", node)
            text = _decoded(str(module), function, node)
            if text is not None and self.depth < _MAX_DEPTH and len(text) <= _MAX_DECODED:
                self.found.extend(_scan_text(self.name, text, depth=self.depth + 1,
                                             at=self.at if self.at is not None else node.lineno))
        self.generic_visit(node)


def _scan_text(name: str, source: str, *, depth: int = 0, at: int | None = None) -> list[Finding]:
    lines = source.splitlines()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return [Finding(kind=kind, file=name, line=at if at is not None else n,
                        code=(f"(decoded) {text.strip()}" if at is not None else text.strip())[:160])
                for n, text in enumerate(lines, start=1) for kind, pattern in _REGEX_FALLBACK if pattern.search(text)]
    scanner = _Scanner(name, lines, depth=depth, at=at)
    scanner.visit(tree)
    return scanner.found


def scan_file(name: str, source: str) -> list[Finding]:
    """Findings in one file, in line order (a regex pass when the file does not parse); strings the code
    decodes in plain sight are read too, their findings placed at the line that decodes them."""
    found = _scan_text(name, source)
    unique = {(f.kind, f.line, f.code): f for f in found}
    return sorted(unique.values(), key=lambda f: (f.line, f.kind))
