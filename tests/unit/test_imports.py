"""Imports run one way — api → mcp → schema → memory → graph — and no two modules import each other.

Parsed from the source (nothing is imported), so the rule holds for every module, used or not.
"""

from __future__ import annotations

import ast
from pathlib import Path

import hippograph

PACKAGE = Path(hippograph.__file__).parent
# Lower layers first; a module outside them (config, embedding, cli…) sits beside the layers.
LAYERS = ("graph", "memory", "schema", "mcp", "api")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imported(name: str) -> set[str]:
    """The hippograph modules ``name`` imports (a name imported from a module counts as that module)."""
    path = MODULES[name]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in MODULES and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in MODULES and target != name:
                found.add(target)
    return found


def layer(name: str) -> int | None:
    parts = name.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


EDGES = {name: imported(name) for name in MODULES}


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    upward = [f"{a} -> {b}" for a, targets in EDGES.items() for b in targets
              if layer(a) is not None and layer(b) is not None and layer(b) > layer(a)]
    assert upward == []


def test_what_the_layers_stand_on_imports_no_layer() -> None:
    # Modules beside the layers that a layer imports (config, embedding, the encoder…) sit below
    # them all: reaching into any layer would close a circle through it.
    foundations = {b for a, targets in EDGES.items() if layer(a) is not None for b in targets if layer(b) is None}
    assert "hippograph.config" in foundations
    reaching = {name: sorted(t for t in EDGES[name] if layer(t) is not None) for name in foundations}
    assert {name: targets for name, targets in reaching.items() if targets} == {}


def test_no_two_modules_import_each_other() -> None:
    def package(name: str) -> bool:
        return MODULES[name].name == "__init__.py"

    cycles = sorted({tuple(sorted((a, b))) for a, targets in EDGES.items() for b in targets
                     if a in EDGES[b] and not package(a) and not package(b)})
    assert cycles == []


def test_the_parser_sees_the_imports() -> None:
    # A check that reads nothing passes everything: it must see arrows of every form.
    assert "hippograph.graph.driver" in EDGES["hippograph.memory.services"]  # from x import y
    assert "hippograph.graph.recall" in EDGES["hippograph.memory.recall.query"]  # from package import module
    assert layer("hippograph.api.app") > layer("hippograph.schema.root") > layer("hippograph.memory.writing.store") \
        > layer("hippograph.graph.recall")
