"""The standing ladder (``arena ladder``, docs/ladder.md): bots that stay, matched again and
again, a rating that moves after every pair, and a leaderboard on the web.

Its public face is ``__init__.pyi``: the names other packages import, each imported from its
module when first used.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
