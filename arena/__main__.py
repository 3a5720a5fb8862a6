"""``python -m chaodipi.arena`` runs the command line."""

from chaodipi.arena.cli import main

raise SystemExit(main())
