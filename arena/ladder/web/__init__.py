"""The ladder's web pages (docs/ladder.md, "The pages"): the leaderboard, each bot's and each
game's page, their data as JSON, the live events, and the operator's API; served by
Hypercorn on the ladder's own event loop."""

from chaodipi.arena.ladder.web.app import create_app
from chaodipi.arena.ladder.web.server import serve_web

__all__ = ["create_app", "serve_web"]
