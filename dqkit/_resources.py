"""Where bundled files live: inside the installed wheel, or in the repo's `data/` and `widgets/` when editable."""

from __future__ import annotations

from pathlib import Path

from dqkit.contract.errors import ReferenceDataError

_PKG = Path(__file__).resolve().parent
_REPO = _PKG.parent


def bundled(kind: str, name: str) -> Path:
    """Path of bundled file `name` of `kind` ("data" or "widgets"); raises ReferenceDataError if absent."""
    for base in (_PKG / "_bundled" / kind, _REPO / kind):
        p = base / name
        if p.exists():
            return p
    raise ReferenceDataError(f"bundled {kind} file {name!r} is missing from this installation")


def data_file(name: str) -> Path:
    return bundled("data", name)
