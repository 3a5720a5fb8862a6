"""The arena: the table server, the tournament runner and the command line (``arena``)."""
