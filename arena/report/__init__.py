"""A tournament's report: the statistics (Elo, LOS, pentanomial pairs, SPRT), the tables and
their plots (docs/report.md)."""
