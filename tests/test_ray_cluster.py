"""chaodipi.arena.tournament.ray_cluster without a cluster: addresses, and the message when ray is missing (these
run in the normal suite; tests/test_ray_tournament.py starts clusters)."""

from __future__ import annotations

import sys

import pytest

from chaodipi.arena.errors import MissingExtraError
from chaodipi.arena.tournament import ray_cluster
from chaodipi.arena.tournament.ray_cluster import INSTALL_HINT, connect, parse_address


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let monkeypatch restore what connect() sets in the environment."""
    for name in (*ray_cluster.LOOPBACK_ENVIRONMENT, *ray_cluster.QUIET_ENVIRONMENT):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    "address", ["auto", "local", " local ", "127.0.0.1:6379", "head.example:6379", "[::1]:6379"]
)
def test_addresses_taken(address: str) -> None:
    assert parse_address(address) == address.strip()


@pytest.mark.parametrize("address", ["", "auto2", "10.0.0.5", "host:", ":6379", "host:99999"])
def test_malformed_addresses_refused(address: str) -> None:
    with pytest.raises(ValueError, match="'auto', 'local' or HOST:PORT"):
        parse_address(address)


def test_ray_client_addresses_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="Ray Client address, which cannot stream"):
        parse_address("ray://head:10001")


@pytest.mark.usefixtures("environment")
@pytest.mark.parametrize("address", ["local", "auto", "127.0.0.1:6379"])
def test_without_ray_connect_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch, address: str
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(MissingExtraError) as caught:
        connect(address)
    assert str(caught.value) == INSTALL_HINT
    assert "pip install -e '.[ray]'" in INSTALL_HINT
    assert "pip install 'chaodipi-arena[ray]'" in INSTALL_HINT
    assert isinstance(caught.value, ImportError)


@pytest.mark.usefixtures("environment")
def test_a_malformed_address_is_refused_before_ray_is_looked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ValueError, match="HOST:PORT"):
        connect("nowhere")


def test_the_extra_installs_the_version_checked() -> None:
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    assert project["project"]["name"] == "chaodipi-arena"  # as INSTALL_HINT names it
    extras = project["project"]["optional-dependencies"]
    # the version checked, and the arena itself (a node plays its shard with the table server)
    assert extras["ray"] == ["chaodipi-arena[arena]", "ray==2.60.0"]
    assert not any(requirement.startswith("ray") for requirement in extras["test"])
