"""The package's layers go one way down: no module imports, even inside a function, a module
that imports it back, directly or through others, and the layers (a top-level module or a
folder) form no circle either. A few imports that would run back up are named here too.

Two boundaries besides: the engine (every module outside ``rankkit/teaching/``) never imports
``rankkit.teaching``, which holds what the lessons use; and a private name (``_x``, or any
name inside a private module) is used only in the layer that defines it, except the
package's own private modules (``rankkit._validation``, ``rankkit._lazy``), which every
layer shares."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "rankkit"
TEACHING = "rankkit.teaching"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def import_targets(node: ast.AST, package: str) -> list[str]:
    """The dotted paths an import statement names (``from ..io import readers`` in a module of
    ``rankkit.evaluation``: ``rankkit.io.readers`` and ``rankkit.io``); [] for another node."""
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join(anchor + ([node.module] if node.module else []))
        return [f"{base}.{a.name}" for a in node.names] + [base]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    return []


def package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


@functools.cache  # read by several tests, never changed
def imports() -> dict[str, set[str]]:
    """Module -> the rankkit modules it imports anywhere in its code (late imports included)."""
    found_modules = modules()
    graph: dict[str, set[str]] = {}
    for name, path in found_modules.items():
        package = package_of(name, path)
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = import_targets(node, package)
            found |= {t for t in targets if t in found_modules and t != name}
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


# --------------------------------------------------------------------------- teaching


def test_the_engine_never_imports_teaching():
    graph = imports()
    engine = {m: sorted(t for t in targets if t == TEACHING or t.startswith(TEACHING + "."))
              for m, targets in graph.items() if not (m == TEACHING or m.startswith(TEACHING + "."))}
    assert {m: t for m, t in engine.items() if t} == {}
    assert any(t.startswith("rankkit.metrics") for t in graph[f"{TEACHING}.explore"])  # the check sees imports


def test_no_engine_name_loads_teaching():
    """What the AST cannot see: a name loaded on first use (``rk.x``) or an import by string.
    Every module outside the teaching package imported (but those whose optional dependency
    is missing), every top-level name resolved."""
    code = ("import importlib, sys, rankkit\n"
            f"names = {sorted(n for n in modules() if not n.startswith(TEACHING) and n != 'rankkit.__main__')!r}\n"
            "for name in names:\n"
            "    try:\n        importlib.import_module(name)\n"
            "    except ModuleNotFoundError as missing:\n"
            "        if (missing.name or '').startswith('rankkit'):\n            raise\n"
            "for name in dir(rankkit):\n    getattr(rankkit, name)\n"
            "print(sorted(m for m in sys.modules if m.startswith('rankkit.teaching')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- private names


def private_part(path: str) -> str:
    """``path`` up to its first private part (``rankkit.metrics._ranks`` for
    ``rankkit.metrics._ranks.ratio``, ``rankkit.join._Judgments``), or "" if it has none."""
    parts = path.split(".")
    for i, part in enumerate(parts[1:], start=1):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[: i + 1])
    return ""


def outside_its_layer(module: str, path: str) -> bool:
    """Whether ``module`` reaching the private ``path`` crosses layers: a private module of
    the package itself (``rankkit._validation``) serves every layer; any other private name
    belongs to the layer (folder or top-level module) that defines it."""
    home = private_part(path).rpartition(".")[0]
    return home != "rankkit" and layer(home) != layer(module)


def private_uses(name: str, source: str, package: str) -> set[str]:
    """The private paths (up to their first private part) that the module ``name`` imports,
    or reaches as an attribute of a module it imports (``run_blocks._Hashes``), from outside
    their layer."""
    tree = ast.parse(source)
    bound: dict[str, str] = {}  # a local name -> the rankkit path it holds
    found = set()
    for node in ast.walk(tree):
        for target in import_targets(node, package):
            if target.startswith("rankkit.") and private_part(target) and outside_its_layer(name, target):
                found.add(private_part(target))
        if isinstance(node, ast.ImportFrom):
            base = import_targets(node, package)[-1]
            bound.update({a.asname or a.name: f"{base}.{a.name}" for a in node.names if base.startswith("rankkit")})
        elif isinstance(node, ast.Import):
            bound.update({a.asname: a.name for a in node.names if a.asname and a.name.startswith("rankkit")})
            if any(not a.asname and a.name.startswith("rankkit") for a in node.names):
                bound["rankkit"] = "rankkit"  # import rankkit.io.readers binds rankkit
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain, value = [node.attr], node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in bound:
                path = ".".join([bound[value.id], *reversed(chain)])
                if private_part(path) and outside_its_layer(name, path):
                    found.add(private_part(path))
    return found


@functools.cache
def private_crossings() -> frozenset[tuple[str, str]]:
    """(module, private path) for every private name a module uses from another layer."""
    return frozenset((name, private) for name, path in modules().items()
                     for private in private_uses(name, path.read_text(encoding="utf-8"), package_of(name, path)))


#: Crossings that go with a change in the module named: each entry is deleted with its import
#: (test_every_known_crossing_is_still_there fails on an entry left behind).
KNOWN_CROSSINGS: set[tuple[str, str]] = set()


def test_no_private_name_is_used_outside_its_layer():
    assert private_crossings() - KNOWN_CROSSINGS == set()


def test_every_known_crossing_is_still_there():
    assert KNOWN_CROSSINGS - private_crossings() == set()


def test_the_check_finds_private_names_from_another_layer():
    def uses(name, source):
        return private_uses(name, source, name.rpartition(".")[0])

    assert uses("rankkit.plot.curves", "from ..metrics._ranks import ratio\nfrom ..metrics import _x") == {
        "rankkit.metrics._ranks", "rankkit.metrics._x"}
    assert uses("rankkit.cli", "from .io import readers\nreaders._parse(1)\nimport rankkit.io.run_file as rf\n"
                               "rf._frame\nimport rankkit\nrankkit.join._Judgments") == {
        "rankkit.io.readers._parse", "rankkit.io.run_file._frame", "rankkit.join._Judgments"}
    assert uses("rankkit.evaluation.frameless", "from ..join import _Judgments") == {"rankkit.join._Judgments"}
    # the same layer, the package's own private modules and dunder names are fine
    assert uses("rankkit.metrics.binary", "from ._ranks import ratio\nfrom .._validation import check_k") == set()
    assert uses("rankkit.io.run_file", "from .run_blocks import _as_bytes") == set()
    assert uses("rankkit.cli", "from . import __version__\nfrom ._lazy import attach") == set()
