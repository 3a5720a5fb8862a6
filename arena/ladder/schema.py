"""The ladder's tables (SQLAlchemy Core, the same on SQLite and PostgreSQL).

``meta`` holds the schema's version, the deal key and the season; ``bots`` each bot (a
resident's token only as its digest); ``versions`` each version (what is rated); ``pairs`` each
pair and validation game (its id is its deal); ``games`` each game with its record and its
review; ``ratings`` each version's live rating after each of its pairs; ``refits`` and
``refit_ratings`` each published refit.
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = [
    "GAME_COUNTS",
    "SCHEMA_VERSION",
    "bots",
    "games",
    "meta",
    "metadata",
    "pairs",
    "ratings",
    "refit_ratings",
    "refits",
    "versions",
]

SCHEMA_VERSION = 1
"""The schema this code writes; a database with another is refused in one line."""

metadata = sa.MetaData()

meta = sa.Table(
    "meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

bots = sa.Table(
    "bots",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("token_digest", sa.String(64), unique=True),
    sa.Column("command", sa.Text),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("paused", sa.Text),
    sa.Column("retired", sa.Boolean, nullable=False, default=False),
    sa.Column("max_sessions", sa.Integer),
    sa.Column("max_tables", sa.Integer),
)

versions = sa.Table(
    "versions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("bot_id", sa.Integer, sa.ForeignKey("bots.id"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("label", sa.Text, nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("reason", sa.Text, nullable=False, default=""),
    sa.Column("detail", sa.Text, nullable=False, default=""),
    sa.Column("pinned_elo", sa.Float),
    sa.UniqueConstraint("bot_id", "number"),
    sa.UniqueConstraint("bot_id", "label"),
)

pairs = sa.Table(
    "pairs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("version_a", sa.Integer, sa.ForeignKey("versions.id"), nullable=False),
    sa.Column("version_b", sa.Integer, sa.ForeignKey("versions.id"), nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("started_at", sa.Float, nullable=False),
    sa.Column("finished_at", sa.Float),
    sa.Column("score_a", sa.Float),
    sa.Column("reason", sa.Text, nullable=False, default=""),
)

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("pair_id", sa.Integer, sa.ForeignKey("pairs.id"), nullable=False),
    sa.Column("version_a", sa.Integer, sa.ForeignKey("versions.id"), nullable=False),
    sa.Column("version_b", sa.Integer, sa.ForeignKey("versions.id"), nullable=False),
    sa.Column("swapped", sa.Boolean, nullable=False),
    sa.Column("score_a", sa.Float),
    sa.Column("hands", sa.Integer, nullable=False),
    sa.Column("levels_a", sa.Integer, nullable=False),
    sa.Column("levels_b", sa.Integer, nullable=False),
    sa.Column("defended_a", sa.Integer, nullable=False),
    sa.Column("points_a", sa.Integer, nullable=False),
    sa.Column("defended_b", sa.Integer, nullable=False),
    sa.Column("points_b", sa.Integer, nullable=False),
    sa.Column("strikes_a", sa.Integer, nullable=False),
    sa.Column("strikes_b", sa.Integer, nullable=False),
    sa.Column("illegal_a", sa.Integer, nullable=False),
    sa.Column("illegal_b", sa.Integer, nullable=False),
    sa.Column("crashes_a", sa.Integer, nullable=False),
    sa.Column("crashes_b", sa.Integer, nullable=False),
    sa.Column("fallbacks_a", sa.Integer, nullable=False),
    sa.Column("fallbacks_b", sa.Integer, nullable=False),
    sa.Column("forfeit", sa.Text),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("errors", sa.Text, nullable=False),
    sa.Column("void", sa.Text),
    sa.Column("seconds", sa.Float, nullable=False),
    sa.Column("finished_at", sa.Float, nullable=False),
    sa.Column("record", sa.LargeBinary),
    sa.Column("review", sa.LargeBinary),
    sa.UniqueConstraint("pair_id", "swapped"),
)

ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id"), primary_key=True),
    sa.Column("pair_id", sa.Integer, sa.ForeignKey("pairs.id"), primary_key=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
)

refits = sa.Table(
    "refits",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("pairs", sa.Integer, nullable=False),
)

refit_ratings = sa.Table(
    "refit_ratings",
    metadata,
    sa.Column("refit_id", sa.Integer, sa.ForeignKey("refits.id"), primary_key=True),
    sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id"), primary_key=True),
    sa.Column("elo", sa.Float, nullable=False),
    sa.Column("low", sa.Float, nullable=False),
    sa.Column("high", sa.Float, nullable=False),
    sa.Column("pairs", sa.Integer, nullable=False),
)

sa.Index("games_by_pair", games.c.pair_id)
sa.Index("pairs_by_a", pairs.c.version_a)
sa.Index("pairs_by_b", pairs.c.version_b)

GAME_COUNTS = [
    "score_a",
    "hands",
    "levels_a",
    "levels_b",
    "defended_a",
    "points_a",
    "defended_b",
    "points_b",
    "strikes_a",
    "strikes_b",
    "illegal_a",
    "illegal_b",
    "crashes_a",
    "crashes_b",
    "fallbacks_a",
    "fallbacks_b",
    "forfeit",
    "reason",
    "errors",
    "void",
    "seconds",
]
"""The columns a game takes from its :class:`GameRow`, by the same names."""
