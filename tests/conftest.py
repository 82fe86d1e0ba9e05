"""Shared fixtures. Tests that need `../shared` reference data skip with a clear reason when it is absent."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DQKIT_SHARED_DIR", REPO.parent / "shared"))
# Tests never see the user's installed address references: the session gets an empty folder of its own (child
# processes such as `dqkit serve` inherit it). Tests that install references point it elsewhere themselves.
os.environ.setdefault("DQKIT_REFERENCE_DIR", tempfile.mkdtemp(prefix="dqkit-test-refs-"))
os.environ.pop("DQKIT_REFERENCE", None)  # tests that want the demo ask for it


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The `../shared` folder beside the repo (override with DQKIT_SHARED_DIR)."""
    if not (SHARED / "data").is_dir():
        pytest.skip(f"needs the shared reference data at {SHARED} (set DQKIT_SHARED_DIR)")
    return SHARED


@pytest.fixture(scope="session")
def seed_lead_text(shared_dir: Path) -> str:
    return (shared_dir / "seeds" / "000_9ef535bb21cb523b.txt").read_text()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A test stopped by its timeout can leave a forked worker behind, and the interpreter's exit would wait on it
    (concurrent.futures joins its pool threads at exit): end any child process the session still has."""
    import multiprocessing

    for child in multiprocessing.active_children():
        child.terminate()
        child.join(5)
        if child.is_alive():
            child.kill()
