"""``python -m engine build``: which build of the engine runs here, compiled or interpreted, and why."""

from __future__ import annotations

import argparse

from engine import BUILD


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options."""


def run(args: argparse.Namespace) -> int:
    """Print one line (``engine build: compiled (mypyc): ...`` or ``engine build: interpreted: <reason>``);
    exit status 0 either way."""
    print(f"engine build: {BUILD.describe()}")
    return 0
