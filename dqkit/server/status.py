"""The HTTP status that goes with each lead RESULT_CODE (the seed leaves the mapping open; this is dqkit's choice).

The rule: the HTTP status says whether the service *processed* the lead; RESULT_CODE says what the lead is like.
So every outcome the engine reaches about the lead's content is a 200 with its E- or S-code in the message, a
request the service could not read is a 400, an account that may not use the service is a 403, and a fault of the
service is a 500 (which clients retry). The body is an ELSGenericMessage in every one of these cases.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from dqkit.contract.codes import RESULT_CODES

LEAD_HTTP_STATUS: Final[Mapping[str, int]] = MappingProxyType({
    "S100": 200,  # processed
    "S101": 200,  # processed: no match
    "S102": 200,  # processed: address not valid
    "E100": 200,  # processed: spoof words (lead quality)
    "E200": 200,  # processed: invalid character in a field
    "E600": 200,  # processed: name missing
    "E601": 200,  # processed: address missing
    "E602": 200,  # processed: phone missing
    "E300": 400,  # the request could not be read (not JSON/XML/form, or not the schema)
    "E500": 403,  # the caller's IP address is not allowed
    "E501": 403,  # unknown CLIENT_ID or PARTNER_ID
    "E400": 500,  # internal error: retry
})
assert set(LEAD_HTTP_STATUS) == set(RESULT_CODES), "every RESULT_CODE needs an HTTP status"


def lead_http_status(result_code: str) -> int:
    """HTTP status for a RESULT_CODE; an unknown code (none exists today) is treated as a service fault."""
    return LEAD_HTTP_STATUS.get(result_code, 500)


def status_table_markdown() -> str:
    """The mapping as a Markdown table (used in the OpenAPI description)."""
    rows = ["| RESULT_CODE | HTTP status | meaning |", "|---|---|---|"]
    for code, status in sorted(LEAD_HTTP_STATUS.items(), key=lambda kv: (kv[1], kv[0])):
        rows.append(f"| {code} | {status} | {RESULT_CODES[code].value} |")
    return "\n".join(rows)
