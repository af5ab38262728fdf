"""No import cycle, between modules or between folders: each module of ``engine`` and ``webapp`` and each of their
sub-packages (a folder, counted as one) imports only what does not import it back, so every part can be read, and
changed, from the bottom up. Imports under ``TYPE_CHECKING`` count too: they are dependencies all the same."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "webapp")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """The modules of our packages that the module at ``path`` imports (absolute names)."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
    return {name for name in names if name.split(".")[0] in PACKAGES}


def modules() -> dict[str, set[str]]:
    found = {module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")}
    return {name: {target for target in imported(path) if target in found} for name, path in found.items()}


def unit_of(module: str) -> str:
    """The part a module belongs to: its folder below the top-level package, else the module itself."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else module


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of nodes, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target):], target]
            if target not in state and (found := visit(target)):
                return found
        state[node] = 2
        stack.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_module_imports_itself_back() -> None:
    graph = {name: {target for target in targets if target != name} for name, targets in modules().items()}
    # A package's __init__ re-exporting its modules is not a cycle of the code that uses them.
    graph = {name: {t for t in targets if not (name.startswith(t + ".") and t in graph)}
             for name, targets in graph.items()}
    assert cycle(graph) is None, cycle(graph)


@pytest.mark.parametrize("package", PACKAGES)
def test_no_folder_imports_itself_back(package: str) -> None:
    graph: dict[str, set[str]] = {}
    for name, targets in modules().items():
        if name.split(".")[0] != package:
            continue
        unit = unit_of(name)
        graph.setdefault(unit, set()).update(unit_of(target) for target in targets if unit_of(target) != unit)
    graph = {unit: {t for t in targets if t != package} for unit, targets in graph.items() if unit != package}
    assert cycle(graph) is None, cycle(graph)
