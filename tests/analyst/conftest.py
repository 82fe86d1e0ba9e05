"""Fixtures of the analyst tests: real `dqkit serve` processes playing the vendor on 127.0.0.1.

`vendor` answers like the local engine; `dissenter` is configured to disagree: its own spoof list names people
of the sample leads, so it answers E100 where the local engine answers S100. A `FaultProxy` (tests/http) in front
counts every call a server receives and injects faults when a test asks.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dqkit.server.testing import ServedProcess, serve_process

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "http"))

from analyst_helpers import TOKEN, dissenting_names, sample


@pytest.fixture(scope="session")
def vendor() -> Iterator[ServedProcess]:
    with serve_process(tokens=[TOKEN]) as served:
        yield served


@pytest.fixture(scope="session")
def dissenter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServedProcess, list[str]]]:
    names = dissenting_names(sample(2000))
    path = tmp_path_factory.mktemp("dissent") / "fakes.txt"
    path.write_text("\n".join(names) + "\n", encoding="utf-8")
    with serve_process(tokens=[TOKEN], extra_args=["--spoof-list", str(path)]) as served:
        yield served, names
