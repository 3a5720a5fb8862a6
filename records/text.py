"""Text a bot wrote (its name, its notes, its stderr, its error text), made safe to print on a
terminal: :func:`visible` shows each control character as an escape a person reads, so that
no bot can clear the operator's screen, set its title, ring its bell, move its cursor, write
to its clipboard (OSC 52) or reverse the text around it. Every command that prints such text
to a terminal (``arena show``, ``watch``, ``games``, ``report``, ``run``) passes it through
:func:`visible`, and prints it with rich only as :class:`rich.text.Text` or ``markup=False``
(a bot named ``[/]x`` is no markup).

>>> visible("bot\\x1b]52;c;aGk=\\x07 says\\thi\\r\\n")
'bot\\\\x1b]52;c;aGk=\\\\x07 says\\\\thi\\\\r\\\\n'
>>> visible("红五 ♠A"), visible(visible("\\x1b[2J"))
('红五 ♠A', '\\\\x1b[2J')
"""

from __future__ import annotations

import re

__all__ = ["visible"]

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""The C0 and C1 control characters and DEL (a terminal acts on them), the line and paragraph
separators, and the marks and overrides of bidirectional text (they reorder what follows)."""

_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    code = ord(char)
    return _SHORT.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every character a terminal would act on shown as a Python-style escape
    (``\\x1b``, ``\\n``, ``\\u202e``); printable text, CJK and card suits as they are. Applying
    it twice changes nothing more. ``lines``: text of several lines, whose newlines (``\\n``
    alone) are kept.

    >>> visible("a\\nb\\r\\n", lines=True)
    'a\\nb\\\\r\\n'
    """
    if lines:
        return "\n".join(_UNSAFE.sub(_escape, line) for line in text.split("\n"))
    return _UNSAFE.sub(_escape, text)
