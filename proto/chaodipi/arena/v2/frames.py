"""The local transport's framing: the contract's messages over one byte stream between the arena
and a bot process it started (a Unix socket pair, the child's end inherited as a file
descriptor named in ``$ARENA_LOCAL``).

The link carries the same rpcs as gRPC, many at once: each stream has an id the bot picks
(odd numbers, from 1), and every frame is ``length (4 bytes) · stream id (4) · kind (1)``,
little-endian, followed by ``length`` bytes of payload:

==========  ==============  ==========================================================
kind        from            payload
==========  ==============  ==========================================================
ENTER       bot             an ``EnterRequest``: opens a session stream (rpc ``Enter``)
PLAY        bot             a ``PlayRequest`` (the Hello): opens a seat stream (``Play``)
MESSAGE     either          a ``PlayRequest`` (bot), or a ``PlayResponse`` or ``EnterResponse``
HALF_CLOSE  bot             none: the bot sends no more on this stream (gRPC's done_writing)
CANCEL      bot             none: the bot drops the stream (gRPC's cancel)
END         arena           status code (1 byte, gRPC's numbering) and UTF-8 details: the
                            stream is over, as a gRPC status ends it (0: OK)
==========  ==============  ==========================================================

A frame longer than the reader takes (:data:`MAX_FRAME` from a bot, :data:`MAX_ARENA_FRAME`
from the arena) or of an unknown kind breaks the link. Nothing here knows of sockets or event loops.

>>> frame = encode(Kind.MESSAGE, 3, b"abc")
>>> reader = FrameReader()
>>> reader.feed(frame[:5]), reader.feed(frame[5:] + encode(Kind.CANCEL, 3))
([], [(<Kind.MESSAGE: 3>, 3, b'abc'), (<Kind.CANCEL: 5>, 3, b'')])
>>> decode_end(encode_end(5, "no table 'x'"))
(5, "no table 'x'")
"""

from __future__ import annotations

import enum
import struct

__all__ = [
    "ENVIRONMENT",
    "HEADER",
    "MAX_ARENA_FRAME",
    "MAX_FRAME",
    "READ_CHUNK",
    "FrameError",
    "FrameReader",
    "Kind",
    "decode_end",
    "encode",
    "encode_end",
]

ENVIRONMENT = "ARENA_LOCAL"
"""The variable naming the link's file descriptor (``fd:N``) in a bot's environment."""

HEADER = struct.Struct("<IIB")
MAX_FRAME = 64 * 1024
"""The longest payload a bot's frame may carry (as the gRPC server's message limit)."""
MAX_ARENA_FRAME = 4 * 1024 * 1024
"""The longest payload an arena's frame may carry (as a gRPC client's message limit)."""


READ_CHUNK = 64 * 1024
"""The most a link reads from its socket at once."""


class Kind(enum.IntEnum):
    """What a frame is (module docstring)."""

    ENTER = 1
    PLAY = 2
    MESSAGE = 3
    HALF_CLOSE = 4
    CANCEL = 5
    END = 6


_KINDS = {int(kind): kind for kind in Kind}


class FrameError(ValueError):
    """Bytes that are not frames: the link is broken."""


def encode(kind: Kind, stream: int, payload: bytes = b"") -> bytes:
    """One frame."""
    return HEADER.pack(len(payload), stream, kind) + payload


def encode_end(code: int, details: str = "") -> bytes:
    """An END frame's payload: the status code and its details."""
    return bytes((code,)) + details.encode("utf-8", "replace")[: MAX_FRAME - 1]


def decode_end(payload: bytes) -> tuple[int, str]:
    """An END frame's status code and details."""
    if not payload:
        raise FrameError("an END frame without a status code")
    return payload[0], payload[1:].decode("utf-8", "replace")


class FrameReader:
    """Frames out of a byte stream, as its pieces come; each payload at most ``max_frame``
    bytes. A link's protocol (an ``asyncio.BufferedProtocol``) reads into :attr:`chunk`, one
    buffer kept for the reader's life, and hands over what it read with :meth:`feed_chunk`: a
    plain protocol's transport makes a 256 KiB ``bytes`` for every read, which the C library
    can map and unmap each time (in a bot's process it did: three system calls more a
    message; the arena's heap kept them)."""

    __slots__ = ("_buffer", "chunk", "max_frame")

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self.max_frame = max_frame
        self.chunk = memoryview(bytearray(READ_CHUNK))
        """Where a protocol reads the socket's bytes to (its ``get_buffer``)."""

    def feed_chunk(self, nbytes: int) -> list[tuple[Kind, int, bytes]]:
        """The frames completed by the first ``nbytes`` of :attr:`chunk` (a protocol's
        ``buffer_updated``), as :meth:`feed`.

        >>> reader, frame = FrameReader(), encode(Kind.MESSAGE, 3, b"abc")
        >>> reader.chunk[:4] = frame[:4]
        >>> reader.feed_chunk(4)
        []
        >>> reader.chunk[: len(frame) - 4] = frame[4:]
        >>> reader.feed_chunk(len(frame) - 4)
        [(<Kind.MESSAGE: 3>, 3, b'abc')]
        """
        return self.feed(self.chunk[:nbytes])

    def feed(self, data: bytes | memoryview) -> list[tuple[Kind, int, bytes]]:
        """The frames ``data`` completes (``FrameError`` on bytes that cannot be frames)."""
        buffer = self._buffer
        buffer += data
        frames: list[tuple[Kind, int, bytes]] = []
        size = HEADER.size
        start, end = 0, len(buffer)
        while end - start >= size:
            length, stream, kind = HEADER.unpack_from(buffer, start)
            if length > self.max_frame:
                raise FrameError(f"a frame of {length} bytes (the most is {self.max_frame})")
            known = _KINDS.get(kind)
            if known is None:
                raise FrameError(f"a frame of unknown kind {kind}")
            if end - start - size < length:
                break
            body = start + size
            frames.append((known, stream, bytes(buffer[body : body + length])))
            start = body + length
        del buffer[:start]
        return frames
