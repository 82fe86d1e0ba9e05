"""Process-wide defaults of the notebook surface: progress bars and the result cache, each off with one switch.

Three ways to set them, the narrowest winning: an argument of the call (`progress=False`, `cache=False`), the
`options` object below (`dqkit.notebook.options.cache = False` for the rest of the session), and environment
variables read when dqkit is imported (for CI and nbval runs, where no one edits the notebook):

    DQKIT_CACHE=0           no persistent cache
    DQKIT_CACHE_DIR=PATH    where the cache file lives (default: the user cache directory of platformdirs)
    DQKIT_PROGRESS=0        no progress bars (they are also off while pytest runs a test)
    DQKIT_REFERENCE=demo    the address data of the local engine when a call does not say (`reference=`):
                            unset = the installed references (`dqkit reference add`); "demo" = the synthetic demo
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

_FALSE = frozenset({"0", "false", "no", "off", ""})


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() not in _FALSE


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


@dataclass
class Options:
    """Defaults used when a call does not say. Change the attributes of `options`, do not replace it."""

    progress: bool = field(default_factory=lambda: _env_flag("DQKIT_PROGRESS", True))
    cache: bool = field(default_factory=lambda: _env_flag("DQKIT_CACHE", True))
    cache_dir: Path | None = None
    reference: str | None = field(default_factory=lambda: os.environ.get("DQKIT_REFERENCE", "").strip() or None)

    def show_progress(self, requested: bool | None) -> bool:
        """Whether to draw a bar: the call's wish, else the default; never while pytest runs a test."""
        if requested is not None:
            return requested
        return self.progress and "PYTEST_CURRENT_TEST" not in os.environ

    def cache_directory(self) -> Path:
        """The folder of the cache file: `cache_dir`, else $DQKIT_CACHE_DIR, else dqkit's user cache directory."""
        if self.cache_dir is not None:
            return Path(self.cache_dir)
        env = _env_path("DQKIT_CACHE_DIR")  # read again: a test or a launcher may set it after import
        if env is not None:
            return env
        import platformdirs

        return Path(platformdirs.user_cache_dir("dqkit", appauthor=False))


options = Options()
