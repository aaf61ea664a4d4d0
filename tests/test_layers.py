"""The package's layers go one way down: no module imports, even inside a function, a module
that imports it back, directly or through others, and the layers (a top-level module or a
folder) form no circle either. A few imports that would run back up are named here too."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "rankkit"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    """Module -> the rankkit modules it imports anywhere in its code (late imports included)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            found |= {t for t in targets if t in modules and t != name}
        # a package's own __init__ runs before any of its modules: not an import of the module's
        graph[name] = {t for t in found if not name.startswith(t + ".")}
    return graph


def layer(module: str) -> str:
    """The layer of a module: its folder under rankkit, or the top-level module itself."""
    return ".".join(module.split(".")[:2])


def cycle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of the graph, or [] when it has none (depth-first search)."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_no_module_circle():
    assert cycle(imports()) == []


def test_no_layer_circle():
    layers: dict[str, set[str]] = {}
    for module, targets in imports().items():
        layers.setdefault(layer(module), set()).update(layer(t) for t in targets if layer(t) != layer(module))
    assert cycle(layers) == []


def test_the_imports_that_used_to_run_back_up_are_gone():
    graph = imports()
    below_dask = [m for m in graph if m.startswith(("rankkit.evaluation", "rankkit.names", "rankkit.join",
                                                    "rankkit.io", "rankkit.metrics", "rankkit.stats"))]
    assert [m for m in below_dask if "rankkit.dask" in graph[m]] == []
    assert "rankkit.stats" not in graph["rankkit.report"]   # a report formats the table it is given
    assert not any(t.startswith("rankkit.evaluation") for t in graph["rankkit.join"])


def test_the_check_finds_a_circle():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) == []
