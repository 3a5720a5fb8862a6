"""Tournaments: the config and its schedule, secret deals, the results database, the bots'
pools and processes, and the one driver with its backends (local, Ray).

Its public face is ``__init__.pyi``: the names other packages import, each imported
from its module when first used (so that ``arena --help`` loads none of them).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
