"""The ``arena`` command line: one module per command, and the argument types they share."""
