"""Fixtures of the hostile-client suite: one real `dqkit serve` on 127.0.0.1 with small limits (so each attack is
cheap to run), and raw-socket helpers. Every loop here is bounded in count and time."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dqkit.server.testing import ServedProcess, serve_process

sys.path.insert(0, str(Path(__file__).parent))  # the helpers beside this file

from hostile import TOKEN


@pytest.fixture(scope="package")
def hostile_server() -> Iterator[ServedProcess]:
    args = ["--header-timeout", "1.5", "--body-timeout", "2", "--send-timeout", "2", "--max-connections", "40"]
    with serve_process(tokens=[TOKEN], demo=True, extra_args=args) as served:
        yield served
