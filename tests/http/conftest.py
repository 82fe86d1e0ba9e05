"""Fixtures of the HTTP tests: a real `dqkit serve` subprocess on 127.0.0.1 (one per session), and its token.

Other test folders can have the same with `dqkit.server.testing.serve_fixture`:

    from dqkit.server.testing import serve_fixture
    dqkit_server = serve_fixture(tokens=["test-token"])
"""

from __future__ import annotations

import sys
from pathlib import Path

from dqkit.server.testing import serve_fixture

sys.path.insert(0, str(Path(__file__).parent))  # the helpers beside this file (faultproxy, inthread, ...)

from http_helpers import TEST_TOKEN

dqkit_server = serve_fixture(tokens=[TEST_TOKEN], demo=True)
