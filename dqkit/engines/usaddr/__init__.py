"""US address standardization to USPS Publication 28, offline and in pure Python.

    parse_street(text) -> Street                      one delivery line into its Pub 28 parts
    standardize(address, points=None) -> Standardized  the seed's StandardizedAddress with status codes

Modules: `street` (the Street value), `pub28` (the USPS tables), `tokens`, `parser` (delivery lines), `points`
(the PointSource seam to an address-point index, and an in-memory one), `lastline` (one-line splitting),
`reconcile` (city / state / ZIP against `dqkit.engines.zipdata`), `match` (address points), `barcode` (check
digit), `standardize` (the entry point; its docstring defines `valid` and what is never invented).
"""

from dqkit.engines.usaddr.parser import parse_street
from dqkit.engines.usaddr.points import AddressPoint, InMemoryPoints, PointSource
from dqkit.engines.usaddr.standardize import AddressInput, MatchLevel, Standardized, standardize
from dqkit.engines.usaddr.street import Street

__all__ = [
    "AddressInput",
    "AddressPoint",
    "InMemoryPoints",
    "MatchLevel",
    "PointSource",
    "Standardized",
    "Street",
    "parse_street",
    "standardize",
]
