"""A reference that carries ZIP+4, carrier route and delivery point (columns ZIP4, CRRT, DP) gives the postal code
with ZIP+4, `barcode` and `route_classification`; the answers still validate against the published schemas.

The reference is a small SYNTHETIC file written by the test (real street and ZIP of Alameda, invented ZIP+4 /
route / delivery point values): it exercises the columns, it claims nothing about real addresses.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conformance_helpers import TOKEN, Check

from dqkit.client.address import AddressClient
from dqkit.contract.address import SearchRequest
from dqkit.contract.address_components import AddOns
from dqkit.engines.address.components import check_digit
from dqkit.server.testing import ServedProcess, serve_process

pytestmark = pytest.mark.shared
ROWS = """LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE,ID,ZIP4,CRRT,DP
-122.2637604,37.7727802,1216,SANTA CLARA AV,,ALAMEDA,,CA,94501,t-1,4301,C012,16
-122.2585955,37.7729139,1543,SANTA CLARA AV,A,ALAMEDA,,CA,94501,t-2,4302,C012,43
-122.2585955,37.7729139,1543,SANTA CLARA AV,B,ALAMEDA,,CA,94501,t-3,4302,C012,44
"""


@pytest.fixture(scope="module")
def zip4_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedProcess]:
    path: Path = tmp_path_factory.mktemp("zip4") / "alameda_zip4.csv"
    path.write_text(ROWS)
    with serve_process(tokens=[TOKEN], references=[path], startup_timeout=120) as server:
        yield server


def test_check_digit_makes_the_sum_a_multiple_of_ten() -> None:
    assert check_digit("94501430116") == "6"  # the digits sum to 34
    digits = "94501430116"
    assert (sum(map(int, digits)) + int(check_digit(digits))) % 10 == 0


def test_zip4_barcode_and_route(zip4_server: ServedProcess, answer_schema: Check) -> None:
    with AddressClient(zip4_server.url, token=TOKEN) as client:
        found = client.search(SearchRequest.of("1216 santa clara", datasets=["us-address"]))
        key = found.result.suggestions[0].global_address_key
        answer = client.format(key, None, AddOns(components=True, metadata=True, enrichment=True))
        answer_schema("GET /address/format/v1/{global_address_key}", answer.raw)
        assert answer.result.address.postal_code == "94501-4301"
        pc = answer.result.components.postal_code if answer.result.components else None
        assert pc is not None and (pc.full_name, pc.primary, pc.secondary) == ("94501-4301", "94501", "4301")
        md = answer.metadata
        assert md is not None and md.barcode is not None and md.route_classification is not None
        assert md.barcode.delivery_point_barcode == "94501430116"
        assert md.barcode.check_digit == check_digit("94501430116")
        assert md.route_classification.carrier_route == "C012"
        unit = client.validate("1543 santa clara ave apt b alameda ca 94501", AddOns(components=True,
                                                                                     metadata=True))
        answer_schema("POST /address/validate/v1", unit.raw)
        assert unit.result.address is not None and unit.result.address.postal_code == "94501-4302"
        assert unit.metadata is not None and unit.metadata.address_classification is not None
        assert unit.metadata.address_classification.address_type is not None
        assert unit.metadata.address_classification.address_type.code == "H"
