"""The game viewer: one self-contained HTML page per game record (``arena show --html``)."""

from chaodipi.records.viewer.page import render_html, write_html

__all__ = ["render_html", "write_html"]
