"""``python -m engine``: the command line (see ``engine.cli``)."""

from engine.cli import main

raise SystemExit(main())
