"""The installed version of a dependency, read without `importlib.metadata` (whose import alone costs ~30 ms of a
start-up that prepared tables otherwise make short): the package's own dist-info folder beside it, found through
its import spec, else `importlib.metadata` as the sure way."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path


@functools.cache
def installed_version(dist: str, module: str | None = None) -> str:
    """Version of distribution `dist` (importable as `module`, default the same name); raises
    PackageNotFoundError when it is not installed."""
    spec = importlib.util.find_spec(module or dist)
    if spec is not None and spec.origin:
        site = Path(spec.origin).parent.parent
        for info in site.glob(f"{dist.replace('-', '_')}-*.dist-info"):
            try:
                for line in (info / "METADATA").read_text(encoding="utf-8").splitlines():
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip()
                    if not line:
                        break
            except OSError:
                break
    from importlib.metadata import version

    return version(dist)
