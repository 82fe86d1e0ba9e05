"""`df.addr.validate(components=True)` adds the component breakdown as columns, from the local engine and from a
`dqkit serve` alike (over a real reference)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conformance_helpers import TOKEN

import dqkit  # noqa: F401  (registers df.addr)
from dqkit.backends.local import LocalBackend
from dqkit.backends.select import BackendSpec
from dqkit.client.address import AddressClient
from dqkit.engines.address import AddressEngine
from dqkit.notebook.addresses import COMPONENT_NAMES
from dqkit.server.testing import ServedProcess

pytestmark = pytest.mark.shared
ROWS = ["1216 Santa Clara Ave, Alameda, CA 94501", "1543 santa clara av # a alameda 94501", "zzzz qqqq"]


def _check(out: pd.DataFrame) -> None:
    for name in COMPONENT_NAMES:
        assert f"addr_{name}" in out.columns
    first, unit, none = (out.iloc[i] for i in range(3))
    assert (first["addr_building_number"], first["addr_street_name"], first["addr_street_type"]) == \
        ("1216", "Santa Clara", "Ave")
    assert (first["addr_town"], first["addr_region_code"], first["addr_postal_code_primary"]) == \
        ("Alameda", "CA", "94501")
    assert pd.isna(first["addr_postal_code_secondary"]) or first["addr_postal_code_secondary"] == ""
    assert unit["addr_sub_building_value"] == "A"
    assert none["addr_confidence"] == "No matches"
    assert pd.isna(none["addr_street_name"]) or none["addr_street_name"] == ""


def test_local_engine(alameda_csv: Path) -> None:
    backend = LocalBackend(address_engine=AddressEngine.from_files([alameda_csv]))
    df = pd.DataFrame({"address": ROWS})
    _check(df.addr.validate(backend=backend, components=True, cache=False, progress=False))
    plain = df.addr.validate(backend=backend, cache=False, progress=False)
    assert "addr_street_name" not in plain.columns


def test_served(served: ServedProcess) -> None:
    df = pd.DataFrame({"address": ROWS})
    with AddressClient(served.url, token=TOKEN) as client:
        _check(df.addr.validate(backend=client, components=True, cache=False, progress=False))
    _check(df.addr.validate(backend=BackendSpec("serve", url=served.url, token=TOKEN), components=True,
                            cache=False, progress=False))
