"""The structure the layer contracts in pyproject.toml cannot state on their own.

The contracts (run by `lint-imports` in scripts/test.sh) let the domain folders import each other;
these tests keep the module graph acyclic across all of app/, keep environment variables in
settings, and keep results typed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

APP = Path(__file__).resolve().parents[2] / "app"

# Code that runs inside the sandbox, not in the app: it reads the launcher's protocol variables.
SANDBOXED_CODE = ("scenarios_builtin", "harness", "scratch_harness")
# Who may touch os.environ, and why it is not a settings read.
ENV_READERS = {
    "core/settings.py": "every setting the app reads",
    # The launcher protocol (app/sandbox/protocol.py): these two run inside the sandbox, where nothing
    # of the app is visible, and read the variables the trusted side set for the run.
    "sandbox/launcher.py": "inside the sandbox: the launcher protocol",
    "sandbox/standby.py": "inside the sandbox: the launcher protocol",
    "ops/metrics.py": "writes PROMETHEUS_MULTIPROC_DIR, which prometheus-client reads itself, before forking",
    "bench/server.py": "builds the environment of the servers a benchmark starts",
    # The engine kit is copied into every harness bundle: it runs inside the sandbox as the agent and on
    # the host as the judge, outside the app (nothing of the app, settings included, is imported there).
    "engine/kit/agent.py": "inside the sandbox: the agent's channel and the candidate's directory",
    "engine/kit/judge.py": "the judge process: its channel, input, output directory and limits",
    "engine/kit/inprocess.py": "bench mode: the launcher protocol's input and output",
    "engine/kit/progress.py": "the progress channel of the launcher protocol",
}
# A ratchet: no new untyped results. 187 when the layers work began, 30 now: what is left stands at
# JSON edges only (JSON columns, the live interview's event data among them, to_dict/from_dict/to_json,
# the TOML and stored-JSON readers).
TYPED_RESULTS_BUDGET = 31


def _strongly_connected(graph: grimp.ImportGraph) -> list[set[str]]:
    """Tarjan's algorithm over the module graph, iteratively (the graph is a few hundred modules deep)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_strongly_connected_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(name)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert _strongly_connected(graph) == [{"pkg.a", "pkg.b"}]


def test_no_module_of_the_app_takes_part_in_an_import_cycle() -> None:
    graph = grimp.build_graph("app", cache_dir=None)
    cycles = [sorted(c) for c in _strongly_connected(graph)]
    assert cycles == [], f"import cycles: {cycles}"


def _python_files() -> list[Path]:
    return [p for p in APP.rglob("*.py") if not set(p.relative_to(APP).parts) & set(SANDBOXED_CODE)]


def _reads_environment(node: ast.AST) -> bool:
    """os.environ[...] read, os.environ.get(...), os.getenv(...)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner, name = node.func.value, node.func.attr
        if name == "getenv" and isinstance(owner, ast.Name) and owner.id == "os":
            return True
        if name in {"get", "setdefault"} and isinstance(owner, ast.Attribute) and owner.attr == "environ":
            return True
    return (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Attribute) and node.value.attr == "environ")


def test_environment_variables_are_read_only_in_settings() -> None:
    readers = {}
    for path in _python_files():
        hits = [n.lineno for n in ast.walk(ast.parse(path.read_text())) if _reads_environment(n)]
        if hits:
            readers[str(path.relative_to(APP))] = hits
    assert set(readers) <= set(ENV_READERS), f"environment read outside settings: {readers}"


def test_results_are_typed_beyond_the_json_edges() -> None:
    count = sum(path.read_text().count("dict[str, Any]") for path in _python_files())
    assert count < TYPED_RESULTS_BUDGET, f"{count} dict[str, Any] annotations in app/ (budget {TYPED_RESULTS_BUDGET})"
