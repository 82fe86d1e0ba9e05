"""pyproject.toml declares what dqkit imports and nothing it does not: every third-party import of the package maps
to a declared distribution, and every declared run-time dependency is imported or named here with what needs it.

The map from import name to distribution comes from the installed environment (importlib.metadata), so the test
reads the same facts pip does.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]

# Modules that never run inside the product, and the extra that brings what they import.
NOT_RUN_TIME = {
    "dqkit/datagen/": "dev",  # the sample-data generators (python -m dqkit.datagen...)
    "dqkit/server/testing.py": "dev",  # the pytest fixture helper
    "dqkit/widgets/jupyter_nodelay.py": "jupyter",  # loaded by a Jupyter server from its own configuration
}

# Run-time dependencies no dqkit module imports, and what imports them.
USED_INDIRECTLY = {
    "aiohttp": "the HTTP clients' transport (httpx-aiohttp)",
    "uvloop": "uvicorn's event loop under `dqkit serve`",
    "httptools": "uvicorn's HTTP parser under `dqkit serve` (dqkit/server/runner.py)",
    "python-multipart": "starlette's request.form() for multipart/form-data lead requests (dqkit/server/lead_routes.py"
                        "; tests/http/test_http_server.py posts one)",
}


def _dist(requirement: str) -> str:
    """The normalized distribution name of a requirement string ("RapidFuzz>=3" -> "rapidfuzz")."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name is not None, requirement
    return re.sub(r"[-_.]+", "-", name.group(0)).lower()


def _imports() -> dict[str, set[str]]:
    """Top-level third-party import name -> the files (relative paths) importing it."""
    out: dict[str, set[str]] = {}
    for path in (REPO / "dqkit").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top != "dqkit" and top not in sys.stdlib_module_names:
                    out.setdefault(top, set()).add(path.relative_to(REPO).as_posix())
    return out


def _distributions_of(top: str) -> set[str]:
    found = importlib.metadata.packages_distributions().get(top)
    assert found, f"{top} is imported by dqkit and installed by no distribution"
    return {_dist(d) for d in found}


def test_every_import_is_declared() -> None:
    runtime = {_dist(r) for r in PROJECT["dependencies"]}
    extras = {name: {_dist(r) for r in reqs} for name, reqs in PROJECT["optional-dependencies"].items()}
    missing: list[str] = []
    for top, files in sorted(_imports().items()):
        dists = _distributions_of(top)
        for file in sorted(files):
            extra = next((e for prefix, e in NOT_RUN_TIME.items() if file.startswith(prefix)), None)
            allowed = runtime | (extras.get(extra, set()) if extra else set())
            if not dists & allowed:
                missing.append(f"{top} ({'/'.join(sorted(dists))}) imported by {file}")
    assert not missing, "imported but not declared:\n" + "\n".join(missing)


def test_every_run_time_dependency_is_used() -> None:
    imported = {d for top in _imports() for d in _distributions_of(top)}
    unused = {_dist(r) for r in PROJECT["dependencies"]} - imported - set(USED_INDIRECTLY)
    assert not unused, f"declared but never imported (drop them, or say in USED_INDIRECTLY what needs them): {unused}"


def test_python_multipart_is_what_starlette_reads_forms_with() -> None:
    """The reason python-multipart stays: without it starlette's form parser is not there."""
    import starlette.formparsers as formparsers

    assert formparsers.multipart is not None  # type: ignore[attr-defined]
