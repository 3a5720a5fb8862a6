"""Reaching a Ray cluster for a tournament: an existing one, a new one on this machine, or an
address.

``ray`` is an optional extra (``pip install -e '.[ray]'``): this module imports it only when
called, so the arena works without it and says how to install it when it is asked for.

>>> hint = INSTALL_HINT
>>> "pip install -e '.[ray]'" in hint and "chaodipi-arena[ray]" in hint
True
>>> parse_address(" auto ")
'auto'
>>> parse_address("10.0.0.5")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: a Ray address is 'auto', 'local' or HOST:PORT ... not '10.0.0.5'

A cluster started here with ``connect("local")`` listens on 127.0.0.1 only (no interface of
the machine is opened), reports no usage statistics, and runs without a dashboard; see
docs/running-on-ray.md for why each setting, and what was measured.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from chaodipi.arena.errors import ClusterError, MissingExtraError

__all__ = [
    "DEFAULT_OBJECT_STORE_MB",
    "INSTALL_HINT",
    "LOOPBACK_ENVIRONMENT",
    "QUIET_ENVIRONMENT",
    "Connection",
    "connect",
    "import_ray",
    "loopback_only",
    "parse_address",
]

INSTALL_HINT = (
    "Ray is not installed: install the arena's `ray` extra, `pip install -e '.[ray]'` from a "
    "clone of the arena, or `pip install 'chaodipi-arena[ray]'`"
)

LOOPBACK_ENVIRONMENT: Mapping[str, str] = {
    # Ray takes the node's address from the machine's main interface and binds every server
    # (GCS, raylets, workers) to all interfaces. With this set to 0 its node-IP lookup answers
    # 127.0.0.1 instead and everything binds to loopback (measured: nothing listens elsewhere).
    # Read once when ray is imported: loopback_only() also sets what ray read.
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
}
"""What a cluster that lives on this machine alone needs in the environment (its processes
inherit it)."""

QUIET_ENVIRONMENT: Mapping[str, str] = {
    # on by default for clusters started here: it would post to Ray's server every hour
    "RAY_USAGE_STATS_ENABLED": "0",
}
"""Defaults for a cluster started here; a value already in the environment wins."""

DEFAULT_OBJECT_STORE_MB = 200
"""A started cluster's shared-memory object store: the results are a few hundred bytes per
game, and Ray's default (30 % of the memory) would reserve gigabytes of /dev/shm."""


def import_ray() -> Any:
    """The ``ray`` module, or :class:`~chaodipi.arena.errors.MissingExtraError` saying how to
    install it."""
    try:
        import ray
    except ImportError as err:
        raise MissingExtraError(INSTALL_HINT, name="ray") from err
    return ray


def parse_address(address: str) -> str:
    """``auto``, ``local`` or ``HOST:PORT`` (the head node's GCS), stripped; ``ValueError``
    otherwise. Ray Client's ``ray://`` is refused: it cannot stream a generator task's
    results (Ray raises for ``num_returns="streaming"``), and the tournament reads every game
    as it finishes."""
    address = address.strip()
    if address in ("auto", "local"):
        return address
    if address.startswith("ray://"):
        raise ValueError(
            f"{address!r} is a Ray Client address, which cannot stream results: run the "
            "arena on a node of the cluster (ray job submit, or a shell on the head) with "
            "--ray auto, or give the head's GCS address HOST:PORT"
        )
    host, colon, port = address.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(
            "a Ray address is 'auto', 'local' or HOST:PORT of the head's GCS "
            f"(e.g. 10.0.0.5:6379), not {address!r}"
        )
    return address


def loopback_only() -> None:
    """Keep a Ray cluster started from this process on 127.0.0.1: set
    :data:`LOOPBACK_ENVIRONMENT` (inherited by the processes Ray starts) and, if ray is
    already imported, the switch it read from it. Call before starting any node."""
    os.environ.update(LOOPBACK_ENVIRONMENT)
    constants: Any = sys.modules.get("ray._private.ray_constants")
    if constants is not None and hasattr(constants, "ENABLE_RAY_CLUSTER"):
        constants.ENABLE_RAY_CLUSTER = False


def _is_loopback(address: str) -> bool:
    host = address.rpartition(":")[0].strip("[]")
    return host in ("localhost", "::1") or host.startswith("127.")


REACH_TIMEOUT_S = 5.0
"""How long ``connect`` waits for a HOST:PORT to accept a connection before saying nothing
answers there (Ray itself would retry for minutes, printing warnings)."""


def _answers(address: str) -> None:
    """``ClusterError`` unless something accepts TCP connections at HOST:PORT."""
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=REACH_TIMEOUT_S).close()
    except OSError as err:
        raise ClusterError(
            f"nothing answers at {address} ({err.strerror or err}): is `ray start --head` "
            "running there, and is that the head's GCS port (6379 by default)?"
        ) from None


@dataclass(frozen=True, slots=True)
class Connection:
    """This process, connected to a cluster as its driver (one per process, as Ray allows)."""

    address: str
    """The GCS address (HOST:PORT) other drivers and ``ray start --address`` can use."""
    started_here: bool
    """True when ``connect("local")`` started the cluster (it ends with :meth:`close`)."""
    nodes: int
    cpus: float
    """Logical CPUs of the live nodes when connecting."""

    def close(self) -> None:
        """Disconnect; a cluster started here stops."""
        import_ray().shutdown()

    def __enter__(self) -> Connection:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def connect(
    address: str,
    *,
    num_cpus: int | None = None,
    object_store_mb: int = DEFAULT_OBJECT_STORE_MB,
    log_to_driver: bool = False,
    runtime_env: Mapping[str, Any] | None = None,
    namespace: str = "chaodipi-arena",
) -> Connection:
    """Connect this process to a Ray cluster as its driver.

    ``address``: ``auto`` (the cluster ``ray start`` runs on this machine, or ``RAY_ADDRESS``),
    ``local`` (start one on this machine, loopback only, for as long as the connection), or
    ``HOST:PORT`` of the head's GCS. ``num_cpus`` and ``object_store_mb`` size a cluster
    started here (default: every core). ``log_to_driver``: copy the workers' stdout and stderr
    to this process's (off: a run's tables log per game; they stay in the node's
    ``/tmp/ray/session_latest/logs``). ``runtime_env`` ships code and files to the workers
    (``working_dir``, ``py_modules``, ``env_vars``; Ray's runtime environments).

    Token authentication follows ``RAY_AUTH_MODE`` as Ray does (a cluster started here
    uses a token in ``~/.ray/auth_token`` unless it is ``disabled``).

    Raises :class:`~chaodipi.arena.errors.MissingExtraError` without ray, ``ValueError`` for a
    malformed address, ``RuntimeError`` if this process is connected already, and
    :class:`~chaodipi.arena.errors.ClusterError` when no cluster answers (for HOST:PORT, within
    :data:`REACH_TIMEOUT_S`)."""
    address = parse_address(address)
    started_here = address == "local"
    if started_here or _is_loopback(address):
        loopback_only()
    if started_here:
        for name, value in QUIET_ENVIRONMENT.items():
            os.environ.setdefault(name, value)
    ray = import_ray()
    if address not in ("auto", "local"):
        _answers(address)
    if ray.is_initialized():
        raise RuntimeError("this process is connected to Ray already (close that connection)")
    options: dict[str, Any] = {
        "address": address,
        "namespace": namespace,
        "log_to_driver": log_to_driver,
        "runtime_env": dict(runtime_env) if runtime_env is not None else None,
    }
    if started_here:
        options.update(
            num_cpus=num_cpus,
            object_store_memory=object_store_mb * 1024 * 1024,
            include_dashboard=False,
        )
    elif num_cpus is not None:
        raise ValueError("num_cpus sizes a cluster started here: only with address 'local'")
    context = ray.init(**options)
    alive = [node for node in ray.nodes() if node.get("Alive")]
    return Connection(
        address=str(context.address_info.get("gcs_address", address)),
        started_here=started_here,
        nodes=len(alive),
        cpus=float(sum(node.get("Resources", {}).get("CPU", 0.0) for node in alive)),
    )
