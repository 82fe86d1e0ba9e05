"""The bundled SYNTHETIC demo reference through `dqkit serve`: its streets with directionals and numbered names
(absent from the Alameda file) come out in the published shapes too."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conformance_helpers import TOKEN, Check

from dqkit.client.address import AddressClient
from dqkit.contract.address import SearchRequest
from dqkit.contract.address_components import AddOns
from dqkit.server.testing import ServedProcess, serve_process

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def demo_server() -> Iterator[ServedProcess]:
    with serve_process(tokens=[TOKEN], demo=True, startup_timeout=180) as server:
        yield server


def test_directional_and_numbered_streets(demo_server: ServedProcess, answer_schema: Check) -> None:
    with AddressClient(demo_server.url, token=TOKEN) as client:
        (dataset,) = client.datasets_answer().result[0].datasets
        assert "synthetic" in dataset.name  # the answer says where it came from
        found = client.search(SearchRequest.of("11 e 10th st ste 101 lancaster ma", search_type="singleline",
                                               datasets=[dataset.id]))
        answer_schema("POST /address/search/v1", found.raw)
        final = next(s for s in found.result.suggestions if s.is_final)
        answer = client.format(final.global_address_key, None, AddOns(components=True, metadata=True,
                                                                      enrichment=True))
        answer_schema("GET /address/format/v1/{global_address_key}", answer.raw)
        street = answer.result.components.street if answer.result.components else None
        assert street is not None and (street.prefix, street.name, street.type) == ("E", "10th", "St")
        assert answer.result.address.address_line_1 == "11 E 10th St Ste 101"
        sub = answer.result.components.sub_building if answer.result.components else None
        assert sub is not None and sub.door is not None and (sub.door.type, sub.door.value) == ("Ste", "101")
        assert answer.result.address.locality == "Lancaster" and answer.result.address.region == "MA"
