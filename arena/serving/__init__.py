"""Serving tables over gRPC: the server and its servicer, admission, the tables with their
clocks, sessions and spectators, and the port a table talks to (docs/architecture.md)."""
