"""Installed address references: real open data for the places a user works on, added once, used everywhere.

    dqkit.reference.add("us/ca/alameda.csv")           # an OpenAddresses file, a .zip bundle, GeoJSON lines ...
    dqkit.reference.add("NAD_r18.zip", state="CA", county="Alameda")
    dqkit.reference.add("s3", source="overture", country="US", region="CA")
    dqkit.reference.list_installed(); dqkit.reference.info("openaddresses-us-ca-alameda"); dqkit.reference.remove(...)

Modules: `store` (where references live, manifests, atomic install/remove), `install` (parts -> staged records
-> index, resumable; junk rows dropped by `dqkit.engines.address_index.hygiene`), `coverage` (the ZIPs a reference
holds every street of), `api` (the functions above), `progress`, and `sources/` (one module per source kind).
From then on `LocalBackend()`, the accessors, `dqkit serve` and the lead engine answer from these references.
"""

from dqkit.reference.api import add, describe, info, list_installed, open_installed, remove
from dqkit.reference.store import Manifest, references_dir

list = list_installed  # `dqkit.reference.list()` reads as the CLI does

__all__ = ["Manifest", "add", "describe", "info", "list", "list_installed", "open_installed", "references_dir",
           "remove"]
