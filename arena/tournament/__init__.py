"""Tournaments: the config and its schedule, secret deals, the results database, the bots'
pools and processes, and the one driver with its backends (local, Ray)."""
