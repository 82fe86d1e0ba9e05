"""Installed address references: real open data for the places a user works on, added once, used everywhere.

    dqkit.reference.add("us/ca/alameda.csv")           # an OpenAddresses file, a .zip bundle, GeoJSON lines ...
    dqkit.reference.add("NAD_r18.zip", state="CA", county="Alameda")
    dqkit.reference.add("s3", source="overture", country="US", region="CA")
    dqkit.reference.list_installed(); dqkit.reference.info("openaddresses-us-ca-alameda"); dqkit.reference.remove(...)

Modules: `store` (where references live, manifests, atomic install/remove), `install` (parts -> staged records
-> index, resumable; junk rows dropped by `dqkit.engines.address_index.hygiene`), `coverage` (the ZIPs a reference
holds every street of), `api` (the functions above), `progress`, and `sources/` (one module per source kind).
From then on `LocalBackend()`, the accessors, `dqkit serve` and the lead engine answer from these references.
The functions are imported on first use: opening installed references (every `LocalBackend()`) needs only `store`,
not the install machinery (0.04 s of imports).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dqkit.reference.api import add, describe, info, list_installed, open_installed, remove
    from dqkit.reference.store import Manifest, references_dir

    list = list_installed

_LAZY = {"add": "api", "describe": "api", "info": "api", "list_installed": "api", "open_installed": "api",
         "remove": "api", "list": "api", "Manifest": "store", "references_dir": "store"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dqkit.reference' has no attribute {name!r}")
    # `dqkit.reference.list()` reads as the CLI does
    value = getattr(importlib.import_module(f"dqkit.reference.{module}"), "list_installed" if name == "list" else name)
    globals()[name] = value
    return value

__all__ = ["Manifest", "add", "describe", "info", "list", "list_installed", "open_installed", "references_dir",
           "remove"]
