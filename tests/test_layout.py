"""The package's layout: imports go one way. Each package of host/popdice sits in a layer
and imports only from layers below its own, and no two modules import each other, even
through others, inside a function (the kind of circle a late import hides) or under
``if TYPE_CHECKING:`` (a circle of types is still a circle). Packages that share a layer do
not import each other: the table and the simulator meet only in the command line. The
facade's lazy ``popdice.X`` is left out (``popdice/__init__.py`` imports nothing when
loaded, so it sits at the bottom), and nothing in the package imports the development lab."""

from __future__ import annotations

import ast
from pathlib import Path

import popdice

PACKAGE = Path(popdice.__file__).parent

# Bottom first. A package may import from its own layer's modules only if they are itself.
LAYERS = (
    ("popdice", "popdice.errors", "popdice.kinds"),
    ("popdice.files",),
    ("popdice.console",),
    ("popdice.games", "popdice.devices"),
    ("popdice.deploy",),
    ("popdice.case",),
    ("popdice.wiring", "popdice.traces"),
    ("popdice.sim", "popdice.table"),
    ("popdice.phones",),
    ("popdice.cli", "popdice.hil"),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def host_modules() -> dict[str, Path]:
    """Every module of the package run by CPython (not the MicroPython stand-ins in upy/)."""
    return {
        module_name(path): path
        for path in PACKAGE.rglob("*.py")
        if "upy" not in path.relative_to(PACKAGE).parts
    }


MODULES = host_modules()


def import_statements(tree: ast.AST, type_checking: bool) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of a module, those under TYPE_CHECKING only if ``type_checking``."""
    found: list[ast.Import | ast.ImportFrom] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        guarded = isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        if isinstance(node, ast.If) and guarded and not type_checking:
            todo.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return found


def imported(name: str, path: Path) -> list[tuple[str, int]]:
    """The package's modules that ``name`` imports, anywhere in it (under TYPE_CHECKING too,
    but for the facade's), with the line. Importing a module loads its packages'
    ``__init__`` too; that is not counted as importing them."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    ancestors = {".".join(name.split(".")[:n]) for n in range(1, name.count(".") + 1)}
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in import_statements(tree, type_checking=name != "popdice"):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                targets.append(submodule if submodule in MODULES else base)
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name and target not in ancestors:
                found.append((target, node.lineno))
    return found


def home(module: str) -> str:
    """The layered package a module belongs to: its top package below popdice."""
    return ".".join(module.split(".")[:2])


def layer_of(package: str) -> int:
    for index, layer in enumerate(LAYERS):
        if package in layer:
            return index
    raise AssertionError(f"{package} is in no layer of tests/test_layout.py")


def test_every_package_has_a_layer() -> None:
    for module in MODULES:
        layer_of(home(module))


def test_imports_go_only_downwards() -> None:
    upward = []
    for module, path in MODULES.items():
        mine = home(module)
        for target, line in imported(module, path):
            theirs = home(target)
            if theirs != mine and layer_of(theirs) >= layer_of(mine):
                upward.append(f"{path.relative_to(PACKAGE)}:{line} imports {target}")
    assert upward == []


def test_no_two_modules_import_each_other() -> None:
    graph = {module: {t for t, _ in imported(module, path)} for module, path in MODULES.items()}

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            current = todo.pop()
            if current == goal:
                return True
            if current not in seen:
                seen.add(current)
                todo.extend(graph.get(current, ()))
        return False

    circles = sorted(f"{a} <-> {b}" for a in graph for b in graph[a] if a < b and reaches(b, a))
    assert circles == []


def test_nothing_in_the_package_imports_the_lab() -> None:
    importers = []
    for module, path in host_modules_and_stand_ins().items():
        for node in import_statements(ast.parse(path.read_text(encoding="utf-8")), True):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            if any((n or "").split(".")[0] == "popdice_lab" for n in names):
                importers.append(f"{module}:{node.lineno}")
    assert importers == []


def host_modules_and_stand_ins() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}
