"""The USPS routing codes a reference file may carry (ZIP+4 add-on, delivery point, carrier route) and the
delivery-point barcode check digit (POSTNET / Intelligent Mail routing code rule).

A code is passed on only when it is well formed (issue 28, claims only from data): a ZIP+4 add-on is four digits
and not 0000 ("ABCD" or "12" is none), a delivery point two digits, a carrier route a route type (B PO box, C city,
G general delivery, H highway contract, R rural) and three digits ("C012"). Anything else in those columns is no
code, so no answer claims it (ADDRESS_CODE 1, MATCHZIPNINE T, a barcode, a carrier route).

The check digit makes the sum of the 11 routing digits (ZIP, ZIP+4, two-digit delivery point) plus itself a multiple
of 10. It is computed only from data a reference actually holds: without a ZIP+4 and a delivery point there is
no check digit (dqkit never invents them).
"""

from __future__ import annotations

import re
from typing import Final

_ROUTE: Final = re.compile(r"[BCGHR][0-9]{3}")


def zip4_addon(value: str) -> str:
    """`value` when it is a ZIP+4 add-on (four digits, not 0000), else ""."""
    return value if len(value) == 4 and value.isascii() and value.isdigit() and value != "0000" else ""


def delivery_point(value: str) -> str:
    """`value` when it is a delivery point (two digits), else ""."""
    return value if len(value) == 2 and value.isascii() and value.isdigit() else ""


def carrier_route(value: str) -> str:
    """`value` (upper-cased) when it is a carrier route ("C012", "R002"), else ""."""
    v = value.strip().upper()
    return v if _ROUTE.fullmatch(v) else ""


def check_digit(zip5: str, zip4: str, delivery_point: str) -> str:
    """The check digit of ZIP + ZIP+4 + delivery point ("" unless all three are complete digit strings)."""
    digits = f"{zip5}{zip4}{delivery_point}"
    if len(zip5) != 5 or len(zip4) != 4 or len(delivery_point) != 2 or not digits.isdigit():
        return ""
    return str((10 - sum(map(int, digits)) % 10) % 10)
