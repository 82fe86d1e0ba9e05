"""No access log line of `dqkit serve` holds an address key or a typed address (issue 22 part 4), and a key read
off the wire reveals nothing of what was typed: the whole search -> refine / step in -> format flow runs against a
real server, then its log is read."""

from __future__ import annotations

import base64

import httpx
from http_helpers import TEST_TOKEN

from dqkit.client.address import AddressClient
from dqkit.server.testing import ServedProcess


def _raw(key: str) -> bytes:
    return base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))


def test_no_log_line_holds_a_key_or_a_typed_address(dqkit_server: ServedProcess) -> None:
    with AddressClient(dqkit_server.url, token=TEST_TOKEN) as client:
        seed = next(s for s in client.search("1 Ma").result.suggestions if s.is_final)
        typed = seed.text.split(",")[0].lower()  # a real address of the demo, as a user would type it
        found = client.search(typed).result
        assert found.suggestions and found.suggestions_key
        keys = {found.suggestions_key, *(s.global_address_key for s in found.suggestions)}
        refined = client.refine(found.suggestions_key, "x").result  # the query key travels in the URL path
        keys |= {s.global_address_key for s in refined.suggestions}
        groups = [s for s in client.search("1 main").result.suggestions if not s.is_final]
        if groups:
            keys.add(groups[0].global_address_key)
            client.step_in(groups[0].global_address_key)
        final = next(s for s in found.suggestions if s.is_final)
        client.format(final.global_address_key)
    # typed text where it does not belong (a query string): answered, never logged
    httpx.post(dqkit_server.url + "/address/search/v1", params={"q": typed, "country_iso": "USA"},
               headers={"Auth-Token": TEST_TOKEN}, json={"country_iso": "USA", "components": {"unspecified": ["1"]}})
    for key in keys:  # nothing of the typed text inside a key
        raw = _raw(key)
        assert typed.encode() not in raw.lower() and typed.split()[-1].encode() not in raw.lower(), key
    log = dqkit_server.log_text()
    assert "/address/suggestions/refine/v1/<key>" in log and "/address/format/v1/<key>" in log  # the log is on
    for key in keys:
        assert key not in log
    assert typed not in log.lower() and typed.replace(" ", "+") not in log.lower()
    assert "country_iso=USA" in log  # what is no secret stays readable
