"""The ``arena`` command line: one module per command, and the argument types they share.

Its public face is ``__init__.pyi``: :func:`main` (``arena``'s entry point), imported when first
used.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
