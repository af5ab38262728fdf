"""Which build of the engine runs: the compiled modules when they are current, else the interpreted ones.

Installing the project (``make install``, ``pip install``) compiles the engine's hot modules with mypyc
(``setup.py``) into ``engine/_compiled/``, away from the sources, with ``manifest.json`` naming each extension and
the SHA-256 of each source it was compiled from. ``use_compiled_build`` (called when the ``engine`` package is
imported, before any of its modules) puts a finder in front of the import system that loads those extensions in
place of the ``.py`` files, all of them or none:

- none when ``ARENA_PURE_PYTHON=1`` is in the environment (every process: CLI, web node, engine workers);
- none when there is no build (installed without a C compiler) or it was made for another Python;
- none when any compiled source differs from the file it was built from, so an edited ``.py`` is what runs
  (the modules of one build call each other directly, so a mix could run stale code) until the next
  ``make install``; the reason is logged once per process.

``BUILD`` says which it is (``python -m engine bench`` and ``GET /api/health`` report it).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

PURE_PYTHON_VARIABLE = "ARENA_PURE_PYTHON"
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
"""The folder holding the ``engine`` package: the manifest's source paths are relative to it."""
COMPILED_FOLDER = Path(__file__).resolve().parent / "_compiled"
MANIFEST = "manifest.json"

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class EngineBuild:
    """The build in use: ``compiled`` with the modules it replaces, or interpreted with the reason."""

    compiled: bool
    modules: tuple[str, ...]
    reason: str

    def describe(self) -> str:
        """One line for people: ``compiled (mypyc): 2 modules`` or ``interpreted: <reason>``."""
        if self.compiled:
            return f"compiled (mypyc): {', '.join(self.modules)}"
        return f"interpreted: {self.reason}"

    def to_dict(self) -> dict[str, object]:
        """JSON-able form: ``{"compiled": bool, "modules": [...], "reason": str}``."""
        return {"compiled": self.compiled, "modules": list(self.modules), "reason": self.reason}


class _CompiledFinder(importlib.abc.MetaPathFinder):
    """Finds the build's extension modules (the engine modules and mypyc's shared library) by exact name."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def inspect_build(folder: Path, package_root: Path, environment: dict[str, str]) -> tuple[EngineBuild, dict[str, Path]]:
    """The build ``folder`` offers for the sources under ``package_root``, and the files of its extensions by module
    name (empty unless the build is usable). Reads the manifest and hashes the sources; imports nothing."""
    if environment.get(PURE_PYTHON_VARIABLE) == "1":
        return EngineBuild(False, (), f"{PURE_PYTHON_VARIABLE}=1"), {}
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return EngineBuild(False, (), "no compiled build (installed without a C compiler, or not installed)"), {}
    if manifest.get("python") != sys.implementation.cache_tag:
        return EngineBuild(False, (), f"the compiled build is for {manifest.get('python')}, "
                                      f"not {sys.implementation.cache_tag}; run make install"), {}
    for source, digest in sorted(manifest["sources"].items()):
        path = package_root / source
        if not path.is_file() or _sha256(path) != digest:
            return EngineBuild(False, (), f"{source} changed since the compiled build; run make install"), {}
    files = {name: folder / file for name, file in manifest["extensions"].items()}
    missing = sorted(str(file) for file in files.values() if not file.is_file())
    if missing:
        return EngineBuild(False, (), f"the compiled build lacks {missing[0]}; run make install"), {}
    modules = tuple(sorted(name for name in files if not name.endswith("__mypyc")))
    return EngineBuild(True, modules, ""), files


def use_compiled_build() -> EngineBuild:
    """Install the finder for the current build (once per process) and return what runs; a build that exists but
    cannot be used (stale, or for another Python) is logged once as a warning."""
    build, files = inspect_build(COMPILED_FOLDER, PACKAGE_ROOT, dict(os.environ))
    if build.compiled:
        sys.meta_path.insert(0, _CompiledFinder(files))
    elif (COMPILED_FOLDER / MANIFEST).is_file() and os.environ.get(PURE_PYTHON_VARIABLE) != "1":
        log.warning("engine build: %s", build.describe())  # a build that cannot be used: stale, or another Python
    return build
