"""One module per command-line command, each with ``add_arguments(parser)`` and ``run(args) -> int``."""
