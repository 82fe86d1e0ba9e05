"""The USPS delivery-point barcode check digit (POSTNET / Intelligent Mail routing code rule).

The digit makes the sum of the 11 routing digits (ZIP, ZIP+4, two-digit delivery point) plus itself a multiple
of 10. It is computed only from data a reference actually holds: without a ZIP+4 and a delivery point there is
no check digit (dqkit never invents them).
"""

from __future__ import annotations


def check_digit(zip5: str, zip4: str, delivery_point: str) -> str:
    """The check digit of ZIP + ZIP+4 + delivery point ("" unless all three are complete digit strings)."""
    digits = f"{zip5}{zip4}{delivery_point}"
    if len(zip5) != 5 or len(zip4) != 4 or len(delivery_point) != 2 or not digits.isdigit():
        return ""
    return str((10 - sum(map(int, digits)) % 10) % 10)
