"""Names shared by the conformance tests (imported by name: the folder is on sys.path, see conftest)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TOKEN = "conformance-token"
Check = Callable[[str, Any], None]
