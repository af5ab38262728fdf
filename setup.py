"""Build of the engine's compiled modules: mypyc turns the hot modules below into C extensions.

Everything else about the distribution is in pyproject.toml; this file only adds the extensions. They are built
into ``engine/_compiled/`` (never beside the sources, where the import system would prefer them to an edited
``.py``), with ``manifest.json`` naming each extension and the SHA-256 of every source it was compiled from;
``engine.native`` loads them only while those sources are unchanged. Without a C compiler (or when the C build
fails) the package installs with the interpreted modules and says so once. docs/compiled.md tells the whole story.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import ClassVar

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, ExecError, PlatformError

COMPILED = (
    "engine/games/connect4_bits.py",
    "engine/games/connect4_heuristic.py",
    "engine/solve/connect4.py",
    "engine/solve/connect4_book.py",
    "engine/solve/retrograde.py",
    "engine/solve/positions.py",
    "engine/solve/ending_space.py",
    "engine/solve/ending_solve.py",
    "engine/search/mate_distance.py",
    "engine/search/base.py",
    "engine/search/alphabeta.py",
    "engine/search/ordering.py",
    "engine/search/tt.py",
    "engine/chess/board.py",
    "engine/chess/exchange.py",
    "engine/chess/leaf_terms.py",
    "engine/chess/tree.py",
)
"""The modules compiled, in one mypyc group (their calls to each other are native C calls)."""
OUTPUT_PACKAGE = "engine._compiled"
"""Where the extensions go: ``engine/_compiled/<module path>.<abi>.so``."""
MANIFEST = "manifest.json"
METADATA_COMMANDS = frozenset({"egg_info", "dist_info"})
"""The commands pip runs this file with before the build (to learn the build's requirements, then the metadata):
they need no extensions, so mypyc translates the engine only for the build itself, not three times."""

ROOT = Path(__file__).resolve().parent


def warn(message: str) -> None:
    """Say it once, where pip shows it."""
    print(f"alphabeta-arena: {message}", file=sys.stderr, flush=True)


def source_hashes() -> dict[str, str]:
    """SHA-256 of each compiled source, taken before mypyc reads them (an edit during the build stales it)."""
    return {path: hashlib.sha256((ROOT / path).read_bytes()).hexdigest() for path in COMPILED}


def has_c_compiler() -> bool:
    """True when the compiler Python was built with is on this machine."""
    compiler = (sysconfig.get_config_var("CC") or "").split()
    return bool(compiler) and shutil.which(compiler[0]) is not None


class BuildCompiledEngine(build_ext):
    """``build_ext`` that places mypyc's extensions under ``engine/_compiled/`` and writes the manifest, or, when
    the C build fails, removes what it built so that the interpreted modules are used."""

    hashes: ClassVar[dict[str, str]] = {}

    def run(self) -> None:
        if self.inplace or self.editable_mode:
            # setuptools copies in-place builds into the package folders, which must exist.
            for extension in self.extensions:
                Path(self.get_ext_fullpath(extension.name)).parent.mkdir(parents=True, exist_ok=True)
        try:
            super().run()
        except (CCompilerError, ExecError, PlatformError) as error:
            warn(f"the C build failed ({error}); the engine is installed interpreted (CPython speed)")
            for path in self.get_outputs():
                Path(path).unlink(missing_ok=True)
            return
        folder = Path(self.get_ext_fullpath(f"{OUTPUT_PACKAGE}.x")).parent
        extensions = {
            ext.name.removeprefix(f"{OUTPUT_PACKAGE}."):
                Path(self.get_ext_fullpath(ext.name)).relative_to(folder).as_posix()
            for ext in self.extensions
        }
        manifest = {"python": sys.implementation.cache_tag, "extensions": extensions, "sources": self.hashes}
        (folder / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        # Extensions of earlier builds (another module list names another shared library) go.
        kept = {folder / MANIFEST, *(folder / file for file in extensions.values())}
        for path in folder.rglob("*"):
            if path.is_file() and path not in kept:
                path.unlink()

    def get_outputs(self) -> list[str]:
        outputs = super().get_outputs()
        return [*outputs, str(Path(self.get_ext_fullpath(f"{OUTPUT_PACKAGE}.x")).parent / MANIFEST)]


def compiled_extensions() -> list:
    """mypyc's extensions of ``COMPILED``, renamed into ``OUTPUT_PACKAGE``; none without a C compiler."""
    if not has_c_compiler():
        warn("no C compiler found; the engine is installed interpreted (CPython speed)")
        return []
    from mypyc.build import mypycify

    BuildCompiledEngine.hashes = source_hashes()
    # The project's mypy settings apply; the overrides for web-layer imports are unused here, and that is fine.
    arguments = ["--no-warn-unused-configs", *COMPILED]
    try:
        extensions = mypycify(arguments, opt_level="3", target_dir=str(Path("build") / "mypyc"))
    except SystemExit:  # mypyc reports type errors on stderr, then exits
        warn("mypyc could not compile the engine (see its errors above); the engine is installed interpreted "
             "(CPython speed)")
        return []
    for extension in extensions:
        # The file's last name component (hence its PyInit_ symbol) is unchanged; engine.native maps the
        # module's real name to this file.
        extension.name = f"{OUTPUT_PACKAGE}.{extension.name}"
    return extensions


def metadata_only(arguments: list[str]) -> bool:
    """True when this run of setup.py only writes metadata (``arguments`` name a command of
    ``METADATA_COMMANDS``)."""
    return not METADATA_COMMANDS.isdisjoint(arguments)


setup(ext_modules=[] if metadata_only(sys.argv[1:]) else compiled_extensions(),
      cmdclass={"build_ext": BuildCompiledEngine})
