"""Serving tables over gRPC: the server and its servicer, admission, the tables with their
clocks, sessions and spectators, and the port a table talks to (docs/architecture.md).

Its public face is ``__init__.pyi``: the names other packages import, each imported
from its module when first used (so that ``arena --help`` loads none of them).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
