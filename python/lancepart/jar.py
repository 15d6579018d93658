"""Finds the plugin jar built by Maven (or named by LANCEPART_JAR)."""

from __future__ import annotations

import os
from pathlib import Path

JAR_NAME = "lancepart-spark-4.1_2.13-0.1.0-SNAPSHOT.jar"
_REPO_ROOT = Path(__file__).resolve().parents[2]


def jar_path() -> str:
    """Absolute path of the plugin jar; raises FileNotFoundError saying how to build it."""
    explicit = os.environ.get("LANCEPART_JAR")
    candidate = Path(explicit) if explicit else _REPO_ROOT / "target" / JAR_NAME
    if not candidate.is_file():
        raise FileNotFoundError(
            f"lancepart plugin jar not found at {candidate}. Build it with "
            f"`mvn -q -B package -DskipTests` in {_REPO_ROOT} (or run `make demo`), "
            "or set LANCEPART_JAR to the jar's path."
        )
    return str(candidate)
