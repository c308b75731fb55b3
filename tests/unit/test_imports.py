"""Imports run one way — api → schema / mcp → operations → memory → graph — and no two modules import
each other. GraphQL (schema) and MCP (mcp) are two interfaces side by side: neither imports the other,
and both reach the rules through the operations.

Parsed from the source (nothing is imported), so the rule holds for every module, used or not.
"""

from __future__ import annotations

import ast
from pathlib import Path

import hippograph

PACKAGE = Path(hippograph.__file__).parent
# Lower layers first, the two interfaces on one level; a module outside them (config, embedding, cli…)
# sits beside the layers.
LAYERS: dict[str, int] = {"graph": 0, "memory": 1, "operations": 2, "schema": 3, "mcp": 3, "api": 4}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def for_the_type_checker(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def imported(name: str, running: bool = False) -> set[str]:
    """The hippograph modules ``name`` imports (a name imported from a module counts as that module);
    ``running``: only those it imports when run, not those named for the type checker alone."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if running:
        tree.body = [node for node in tree.body if not for_the_type_checker(node)]
    found: set[str] = set()
    for node in ast.walk(tree):
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


def package(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def layer(name: str) -> int | None:
    found = package(name)
    return LAYERS[found] if found is not None else None


EDGES = {name: imported(name) for name in MODULES}


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    upward = [f"{a} -> {b}" for a, targets in EDGES.items() for b in targets
              if layer(a) is not None and layer(b) is not None and layer(b) > layer(a)]
    assert upward == []


def test_the_two_interfaces_never_import_each_other() -> None:
    across = [f"{a} -> {b}" for a, targets in EDGES.items() for b in targets
              if {package(a), package(b)} == {"schema", "mcp"}]
    assert across == []


# A function of a stored row an interface already holds, not a call of a rule.
OF_A_ROW = {"hippograph.memory.browse.entity_project"}


def test_the_interfaces_call_the_rules_through_the_operations() -> None:
    # What an interface takes from the rules are their types and constants (to translate); every call
    # of a rule is an operation's. So no interface imports a rule's module as such, nor one of its functions.
    calls = []
    for name, path in MODULES.items():
        if package(name) not in ("schema", "mcp"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("hippograph.memory", "hippograph.graph")):
                calls += [f"{name}: {node.module}.{alias.name}" for alias in node.names
                          if f"{node.module}.{alias.name}" in MODULES
                          or alias.name[0].islower() and f"{node.module}.{alias.name}" not in OF_A_ROW]
    assert calls == []


def test_what_the_layers_stand_on_imports_no_layer() -> None:
    # Modules beside the layers that a layer imports (config, embedding, the encoder…) sit below
    # them all: reaching into any layer would close a circle through it.
    foundations = {b for a, targets in EDGES.items() if layer(a) is not None for b in targets if layer(b) is None}
    assert "hippograph.config" in foundations
    reaching = {name: sorted(t for t in EDGES[name] if layer(t) is not None) for name in foundations}
    assert {name: targets for name, targets in reaching.items() if targets} == {}


def test_the_services_the_rules_take_are_built_above_them() -> None:
    # Every rule takes the services as a type; building them (the writer, the access recorder, the
    # models) needs the rules themselves, so it is the composition root's, at the operations.
    rules = [target for target in imported("hippograph.memory.services", running=True)
             if target.startswith(("hippograph.memory.writing", "hippograph.memory.recall"))]
    assert rules == []
    assert {"hippograph.memory.writing.writer", "hippograph.memory.recall.access_counts"} \
        <= EDGES["hippograph.operations.services"]
    assert layer("hippograph.operations.services") > layer("hippograph.memory.writing.writer")


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
    assert layer("hippograph.api.app") > layer("hippograph.schema.root") > layer("hippograph.operations.recall") \
        > layer("hippograph.memory.writing.store") > layer("hippograph.graph.recall")
    assert layer("hippograph.mcp.tools") == layer("hippograph.schema.root")
