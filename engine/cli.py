"""The command line: ``python -m engine COMMAND ...``.

Each command lives in its own module under ``engine.commands`` with ``add_arguments(parser)`` and
``run(args) -> int`` (the exit status); this module only wires them together.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence

COMMANDS = {
    "analyse": "search a position and print every SearchInfo event",
    "solve": "solve positions read from stdin (connect4: Pons' format)",
    "bench": "benchmark every game under each technique set",
    "uci": "speak the UCI protocol (chess)",
    "tablebase": "build or query solved tables of small games",
    "review": "a verdict on every move of a game, against the truth where it is known, else a search",
    "build": "say whether the engine runs compiled or interpreted, and why",
    "tune": "tune chess's piece-square tables on games (Texel's method)",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with a sub-command for every command module that is present."""
    parser = argparse.ArgumentParser(prog="python -m engine", description="Alpha-Beta Arena engine")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, help_text in COMMANDS.items():
        module_name = f"engine.commands.{name}"
        if importlib.util.find_spec(module_name) is None:
            continue
        module = importlib.import_module(module_name)
        sub = commands.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv``), run the chosen command and return its exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped reading (``| head``): what is left unwritten goes nowhere, quietly, as the Python
        # documentation advises (its "Note on SIGPIPE"); the exit status says the output was cut.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status
