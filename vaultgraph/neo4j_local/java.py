"""Finding a JDK new enough for the Neo4j line we run, or saying exactly what is missing."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

REQUIRED_JAVA = 21
JVM_DIRS = (Path("/usr/lib/jvm"),)


class MissingTool(RuntimeError):
    """A tool the local Neo4j needs is not installed; the message says how to get it."""


def java_major(java_home: Path) -> int | None:
    """The feature version from the JDK's `release` file, or None when it is no JDK."""
    release = java_home / "release"
    if not (java_home / "bin" / "java").exists() or not release.exists():
        return None
    match = re.search(r'^JAVA_VERSION="(\d+)(?:\.(\d+))?', release.read_text(), re.MULTILINE)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2)) if major == 1 and match.group(2) else major


def find_java_home(preferred: Path | None, env_java_home: str | None) -> Path:
    """JAVA_HOME (setting, then environment) when new enough, else the newest JDK under /usr/lib/jvm."""
    for candidate in (preferred, Path(env_java_home) if env_java_home else None):
        if candidate and (java_major(candidate) or 0) >= REQUIRED_JAVA:
            return candidate
    found = [
        (major, path)
        for root in JVM_DIRS if root.is_dir()
        for path in sorted(root.iterdir())
        if not path.is_symlink() and (major := java_major(path) or 0) >= REQUIRED_JAVA
    ]
    if found:
        return max(found)[1]
    raise MissingTool(
        f"Neo4j needs Java {REQUIRED_JAVA} or newer and none was found in JAVA_HOME or /usr/lib/jvm. "
        "Install one (Debian: `apt-get install openjdk-21-jdk-headless`, or a Temurin 25 JDK) "
        "or set VAULTGRAPH_JAVA_HOME to it."
    )


def find_maven() -> str:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise MissingTool("Building the local Neo4j needs Maven: `apt-get install maven`.")
    return mvn
