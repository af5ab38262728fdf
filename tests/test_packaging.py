"""The distribution's package list in pyproject.toml names every Python package of the source tree."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPED_FOLDERS = {"webapp.templates": "templates", "webapp.static": "static"}


def test_every_package_and_the_page_folders_are_installed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    source_packages = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("engine", "webapp")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert set(config["packages"]) == source_packages | set(MAPPED_FOLDERS)
    assert config["package-dir"] == MAPPED_FOLDERS
    assert all((ROOT / folder).is_dir() for folder in MAPPED_FOLDERS.values())
