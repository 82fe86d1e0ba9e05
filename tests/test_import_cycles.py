"""The house has no import circles: no dqkit module imports, directly or through others, one that imports it back.

Every import counts: at module level, inside a function (a function-level import hides a circle, it does not
break it) and under `if TYPE_CHECKING:` (a type that names the importer back is a circle of the design, even if it
never runs). An import of a package
(`from dqkit import __version__`) is an edge to its `__init__`; `from dqkit import plots` is an edge to the submodule.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "dqkit"

# Circles known and left for other work (empty: the house has none; a circle that must stay a while goes here).
KNOWN: set[frozenset[str]] = set()


def _module_names() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of a module, wherever it sits."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def import_graph() -> dict[str, set[str]]:
    """dqkit module -> the dqkit modules it imports."""
    modules = _module_names()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = name.split(".") if is_package else name.split(".")[:-1]
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else base)
            for target in targets:
                while target and target not in modules:  # `import dqkit.a.b.name` -> the nearest module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[frozenset[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_the_detector_sees_a_circle_hidden_in_a_function() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [frozenset({"a", "b", "c"})]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reads_function_level_and_relative_imports() -> None:
    graph = import_graph()
    assert "dqkit.contract.lead" in graph["dqkit"]  # module level
    assert "dqkit.notebook" in graph["dqkit"]  # inside _register_accessors()
    assert "dqkit.backends.select" in graph["dqkit"]  # under TYPE_CHECKING


def test_no_import_circles() -> None:
    found = set(circles(import_graph()))
    new = sorted(sorted(c) for c in found - KNOWN)
    assert not new, "import circles among dqkit modules:\n" + "\n".join(" <-> ".join(c) for c in new)
    gone = KNOWN - found
    assert not gone, f"a known circle is gone, take it out of KNOWN: {sorted(sorted(c) for c in gone)}"
