"""Development mode (no keys) only on loopback: binding anywhere else without keys refuses to start."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgraph import cli
from vaultgraph.app import create_app
from vaultgraph.config import Settings
from vaultgraph.http.auth import StartupRefused, check_bind, is_loopback

pytestmark = pytest.mark.security


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "localhost", "::1", "[::1]"])
def test_loopback_hosts(host: str) -> None:
    assert is_loopback(host)
    check_bind(Settings(host=host, dev_mode=True))


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "vaultgraph.example.com", ""])
def test_other_hosts_need_keys(host: str) -> None:
    assert not is_loopback(host)
    with pytest.raises(StartupRefused, match="VAULTGRAPH_DEV_MODE=false"):
        check_bind(Settings(host=host, dev_mode=True))
    with pytest.raises(StartupRefused):
        create_app(Settings(host=host, dev_mode=True))
    check_bind(Settings(host=host, dev_mode=False))


async def test_keys_only_server_may_bind_anywhere(tmp_path: Path) -> None:
    app = create_app(Settings(host="0.0.0.0", dev_mode=False, data_dir=tmp_path, neo4j_uri="bolt://127.0.0.1:9"))
    await app.state.graph.close()


def test_serve_refuses_before_starting_anything(env_clean: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("VAULTGRAPH_DATA_DIR", str(tmp_path))
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "refusing to listen on 0.0.0.0" in err and "vaultgraph keys create" in err
    assert not (tmp_path / "neo4j").exists(), "no Neo4j was started for a server that cannot run"
