"""What games left: the results database (:mod:`~chaodipi.arena.results.database`), its rows
(:mod:`~chaodipi.arena.results.rows`) and the checks of what a file holds
(:mod:`~chaodipi.arena.results.check`), what a stored tournament says
(:mod:`~chaodipi.arena.results.stored`) and the SPRT (:mod:`~chaodipi.arena.results.sprt`).
Both the tournament that writes it and the report that reads it stand on it; it imports
neither.

Its public face is ``__init__.pyi``: the names other packages import, each imported
from its module when first used (so that ``arena --help`` loads none of them).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
