"""Constants shared by the HTTP tests (a module of its own: `conftest` is an ambiguous import name)."""

from __future__ import annotations

TEST_TOKEN = "test-token-3f9a1c"
