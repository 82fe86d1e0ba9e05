"""The address index file: address points from OpenAddresses-format files, searchable in about a millisecond.
(`dqkit/reference/` is the catalogue of installed references; this package is the file format they are kept in.)

    build_index(files, out, country_iso2=None) -> BuildReport     import CSV / CSV.gz files into one index file
    ReferenceIndex(path)                                          open it (memory-mapped, near-instant)

One index serves both the address validation engine (search, type-down, validate, format) and the US
standardizer, whose `PointSource` protocol (`points_on_street`, `street_names`) `ReferenceIndex` implements; US
streets are normalized at import with the standardizer's own `parse_street`, so both see the same Pub 28 forms.

Why this storage (measured on 1M synthetic addresses, see `docs/address-index.md` and
`benchmarks/bench_address.py`): SQLite FTS5 with a prefix index answers exact prefixes in ~0.35 ms p50 but
4+ ms p99 before any typo tolerance or ranking, and neither it nor DuckDB (whose `starts_with` scans take 4-10 ms)
can express "one or two typos, abbreviations both ways, best house number first" without many extra queries. A
purpose-built layout does (1M synthetic addresses: p50 0.35 ms / p99 1.6 ms with typos and ranking, 75 MB, opens
in ~2 ms): streets are the unit of text search (a 1M-address reference holds ~25k of them), each
token's posting list of streets is a slice of one sorted array, a prefix is a contiguous range of the sorted
vocabulary (so its postings are one slice too), typos are found by rapidfuzz over the vocabulary, and house
numbers are binary searches in a (street, number) key array. All of it is numpy arrays in one file, memory-mapped:
opening costs a header read, nothing is parsed or copied.

State-sized references (`benchmarks/bench_scale.py`): records are streamed into typed columns, never held as
Python objects, so a 10-million-point synthetic state builds in about a minute with a ~1.3 GB peak into a
760 MB file that opens in under a millisecond.
"""

from dqkit.engines.address_index.build import BuildReport, build_from_records, build_index
from dqkit.engines.address_index.reader import Record, SourceFile, source_of
from dqkit.engines.address_index.store import AddressRow, DatasetInfo, ReferenceIndex, StreetRow

__all__ = [
    "AddressRow",
    "BuildReport",
    "DatasetInfo",
    "Record",
    "ReferenceIndex",
    "SourceFile",
    "StreetRow",
    "build_from_records",
    "build_index",
    "source_of",
]
