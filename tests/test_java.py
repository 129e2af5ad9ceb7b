"""Finding a JDK for the local Neo4j, and the message when there is none."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgraph.neo4j_local import java


def _fake_jdk(root: Path, version: str) -> Path:
    home = root / f"jdk-{version}"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "java").write_text("")
    (home / "release").write_text(f'JAVA_VERSION="{version}"\n')
    return home


def test_reads_the_major_version(tmp_path: Path) -> None:
    assert java.java_major(_fake_jdk(tmp_path, "25.0.1")) == 25
    assert java.java_major(_fake_jdk(tmp_path, "1.8.0_392")) == 8
    assert java.java_major(tmp_path / "nothing") is None


def test_prefers_java_home_then_newest_under_jvm_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = _fake_jdk(tmp_path, "17.0.2")
    new21 = _fake_jdk(tmp_path, "21.0.5")
    new25 = _fake_jdk(tmp_path, "25.0.1")
    monkeypatch.setattr(java, "JVM_DIRS", (tmp_path,))
    assert java.find_java_home(None, str(new21)) == new21
    assert java.find_java_home(None, str(old)) == new25
    assert java.find_java_home(new21, str(new25)) == new21


def test_says_what_to_install_when_none_fits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_jdk(tmp_path, "17.0.2")
    monkeypatch.setattr(java, "JVM_DIRS", (tmp_path,))
    with pytest.raises(java.MissingTool, match="apt-get install openjdk-21-jdk-headless"):
        java.find_java_home(None, None)


def test_this_machine_has_a_jdk_for_neo4j() -> None:
    assert (java.java_major(java.find_java_home(None, None)) or 0) >= java.REQUIRED_JAVA
