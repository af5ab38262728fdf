"""The distribution's package list in pyproject.toml names every folder it ships: each Python package of the source
tree, each data folder inside one, and the page folders with their subfolders (so building it warns of none). The
compiled engine's folder (engine/_compiled, made by the build) is no package."""

from __future__ import annotations

import tomllib
from pathlib import Path

from engine.native import COMPILED_FOLDER

ROOT = Path(__file__).resolve().parent.parent
MAPPED_FOLDERS = {"webapp.templates": "templates", "webapp.static": "static"}


def test_every_package_and_the_page_folders_are_installed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    source_folders = {
        ".".join(folder.relative_to(ROOT).parts)
        for top in ("engine", "webapp")
        for folder in [ROOT / top, *(ROOT / top).rglob("*")]
        if folder.is_dir() and folder.name != "__pycache__" and any(path.is_file() for path in folder.iterdir())
        and not folder.is_relative_to(COMPILED_FOLDER)
    }
    page_folders = {
        ".".join((package, *folder.relative_to(ROOT / source).parts))
        for package, source in MAPPED_FOLDERS.items()
        for folder in [ROOT / source, *(ROOT / source).rglob("*")]
        if folder.is_dir()
    }
    assert set(config["packages"]) == source_folders | page_folders
    assert config["package-dir"] == MAPPED_FOLDERS
    assert all((ROOT / folder).is_dir() for folder in MAPPED_FOLDERS.values())
