"""Addresses the arena listens on: ``HOST:PORT`` read, and checked before a server binds it.

grpc alone says only "Failed to bind to address X" (and takes a port past 65535 modulo 65536),
so the arena reads the address itself and, before serving, tries the bind the server will
make: an unknown host, an address that is not this machine's or a port another program holds
is then one line naming the address.

>>> parse_address("127.0.0.1:50051")
('127.0.0.1', 50051)
>>> parse_address("[::1]:0")
('::1', 0)
>>> parse_address("nonsense")
Traceback (most recent call last):
chaodipi.arena.errors.AddressError: 'nonsense' is not HOST:PORT (e.g. 127.0.0.1:50051)
"""

from __future__ import annotations

import errno
import socket

from chaodipi.arena.errors import AddressError

__all__ = ["check_can_listen", "parse_address"]


def parse_address(text: str) -> tuple[str, int]:
    """The host and port of ``HOST:PORT`` (an IPv6 host in brackets: ``[::1]:50051``)."""
    host, colon, port = text.rpartition(":")
    if not colon or not host:
        raise AddressError(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:50051)")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise AddressError(f"{text!r}: write an IPv6 host in brackets, e.g. [::1]:50051")
    if not host or any(c.isspace() for c in host):
        raise AddressError(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:50051)")
    if not (port.isascii() and port.isdigit()) or int(port) > 65535:
        raise AddressError(f"{text!r}: the port must be a number from 0 to 65535, not {port!r}")
    return host, int(port)


def check_can_listen(text: str) -> None:
    """Raise :class:`AddressError` unless a server could listen on ``text`` now: the host
    resolves to addresses of this machine and none of them has the port taken (0: any free
    port, always). Like the arena's server, the probe sets SO_REUSEADDR but never
    SO_REUSEPORT, so a port another server listens on is refused."""
    host, port = parse_address(text)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        raise AddressError(
            f"cannot listen on {text}: no such host {host!r} ({err.strerror})"
        ) from None
    problems: list[str] = []
    for family, kind, proto, _, address in found:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                raise AddressError(
                    f"cannot listen on {text}: the address is in use (another server listens "
                    "there: stop it, or choose another port)"
                ) from None
            problems.append(err.strerror or str(err))
    if len(problems) == len(found):  # grpc serves on the addresses it can bind, if any
        raise AddressError(f"cannot listen on {text}: {problems[0]}")
