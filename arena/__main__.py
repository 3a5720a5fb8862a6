"""``python -m chaodipi.arena`` runs the command line."""

from chaodipi.arena.cli.main import main

raise SystemExit(main())
