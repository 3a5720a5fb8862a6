"""The ``arena`` command line: one module per command, and the argument types they share.
``chaodipi.arena.cli.main.main`` is the entry point (``arena``, ``python3 -m chaodipi.arena``)."""
