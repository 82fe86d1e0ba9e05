"""How a suggestion reads on the wire, as the vendor's published examples show what its schema leaves free.

- Text in the casing of the country's format answer, so a client comparing a suggestion with the address it formats
  (or with its own "line, city ST zip") finds it: US mixed case with no comma before the state ("20 W Main St,
  Alhambra CA 91801"); Canada upper case as Canada Post writes it; the UK's lines mixed case, its post town upper.
- `matched` ranges listed from the end of the text to its start (`[[18, 20], [4, 8], [0, 3]]`): the vendor's
  front-end library wraps each range in tags in the order given without shifting later offsets, which renders
  right only in that order.
"""

from __future__ import annotations

from dqkit.engines.address.layout import last_line, mixed_case
from dqkit.engines.address_index.countries import country

Ranges = list[tuple[int, int]]


def from_the_end(ranges: Ranges) -> Ranges:
    """Ranges ordered from the end of the text to its start (non-overlapping, as `highlight` makes them)."""
    return sorted(ranges, key=lambda r: (r[0], r[1]), reverse=True)


def suggestion_text(iso2: str, text: str, city: str, region: str, postcode: str, ranges: Ranges) -> tuple[str, Ranges]:
    """A suggestion's one-line reference text (upper case, "77 MASSACHUSETTS AVE, CAMBRIDGE, MA 02139") and its
    matched ranges, in the vendor's casing and punctuation ("77 Massachusetts Ave, Cambridge MA 02139"), ranges
    moved with the text and listed from the end."""
    tail = last_line(iso2, city, region, postcode)
    if not tail or not text.endswith(tail):
        return text, from_the_end(ranges)
    head = text[: len(text) - len(tail)]
    up = country(iso2).upper_fields
    lines = ", ".join(mixed_case(x) for x in head.split(", "))  # "NW," would not be read as "NW"
    new_head = head if "street_address" in up else _same_length(head, lines)
    new_city = city if "city" in up and iso2 != "US" else _same_length(city, mixed_case(city))
    if iso2 == "US" and region and tail.startswith(f"{city}, {region}"):
        # "CAMBRIDGE, MA 02139" -> "Cambridge MA 02139": one character less after the city
        cut = len(head) + len(city)
        new_tail = new_city + tail[len(city) + 1:]
        moved = [(_shift(a, cut), _shift(b, cut)) for a, b in ranges]
        return new_head + new_tail, from_the_end(moved)
    new_tail = new_city + tail[len(city):] if tail.startswith(city) else tail
    return new_head + new_tail, from_the_end(ranges)


def _same_length(before: str, after: str) -> str:
    """`after` when casing kept every offset (it does for the reference's ASCII text), else `before` unchanged, so
    a range never points at the wrong characters."""
    return after if len(after) == len(before) else before


def _shift(pos: int, cut: int) -> int:
    """An offset in the text once the character at `cut` is removed."""
    return pos - 1 if pos > cut else pos
