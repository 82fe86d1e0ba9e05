"""The address validation engine of seed 001, offline: search / type-down, validate, refine, step in, format and
look up, over a reference index (`dqkit.engines.address_index`).

    AddressEngine.demo()                    the bundled synthetic demo reference
    AddressEngine.open("refs.dqidx")        an index built by `dqkit index build`
    AddressEngine.from_files(["us/ca/alameda.csv"])

Modules: `query` (reading what was typed), `matching` (words -> streets, typos, fallbacks), `search` (numbers,
grouping, ranking), `validate` (confidence, corrections, match type), `layout` (the 7-line address per country),
`keys` (opaque signed keys), `cache` (building indexes into the user cache), `engine` (the AddressBackend methods).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dqkit.engines.address.engine import AddressEngine

__all__ = ["AddressEngine"]


def __getattr__(name: str) -> Any:
    """`AddressEngine` imported on first use: a lead check without a reference (`dqkit verify` on its own) needs
    only `provenance` of this package, not the engine and the reference index machinery behind it."""
    if name == "AddressEngine":
        from dqkit.engines.address.engine import AddressEngine

        return AddressEngine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
