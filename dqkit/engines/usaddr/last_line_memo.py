"""City, state and ZIP read and reconciled once for each distinct last line (issue 31).

A file of leads repeats its cities and ZIPs (50,000 leads: a few thousand last lines), and reading the fields and
reconciling them with the ZIP data was ~15 us of a lead's ~300 us in `dqkit verify`. Both steps read only their
arguments and the bundled ZIP tables, which do not change in a process, so each is cached on exactly what it reads.

The objects returned are shared by every address with that last line: `standardize` only reads them (it builds
its own lists and sets from them); tests/usaddr/test_last_line_memo.py checks that they are left unchanged.
"""

from __future__ import annotations

import functools

from dqkit.engines.usaddr.lastline import LastLine, parse_last_line
from dqkit.engines.usaddr.reconcile import Reconciled, reconcile


@functools.lru_cache(maxsize=16384)
def last_line(city: str, state: str, zip_text: str, zipplus: str, country: str) -> LastLine:
    """The last line of separate fields (`parse_last_line`), ZIPPLUS taken when the ZIP field held no +4."""
    ll = parse_last_line(city, state, zip_text, country)
    if zipplus.strip() and not ll.zip4:
        ll.zip4 = "".join(c for c in zipplus if c.isdigit())[:4]
    return ll


def reconciled(ll: LastLine, *, box: bool) -> Reconciled:
    """`reconcile(ll, box=box)`, looked up by the fields it reads."""
    return _reconciled(ll.city, ll.state, ll.zip, ll.zip4, ll.country, box)


@functools.lru_cache(maxsize=16384)
def _reconciled(city: str, state: str, zip5: str, zip4: str, country: str, box: bool) -> Reconciled:
    return reconcile(LastLine(city=city, state=state, zip=zip5, zip4=zip4, country=country), box=box)
