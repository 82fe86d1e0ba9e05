"""Fixtures of the conformance tests: the vendor's published structure, an OpenAPI 3.0 validator built from it,
and a real `dqkit serve` over a real reference (OpenAddresses, Alameda county: no ZIP+4, no carrier route).

The structure file is `../shared/notes/address-vendor-schemas.json` (names, types, nesting, required members of
every address operation, from the vendor's OpenAPI document); nothing in it is copied into these tests, so they
cannot drift from it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openapi_schema_validator import OAS30Validator

from dqkit.server.testing import ServedProcess, serve_process

sys.path.insert(0, str(Path(__file__).parent))  # conformance_helpers, vendor_customer

from conformance_helpers import TOKEN, Check


@pytest.fixture(scope="session")
def vendor_schemas(shared_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((shared_dir / "notes" / "address-vendor-schemas.json").read_text())
    return data


def _validator(vendor: dict[str, Any], ref: str) -> OAS30Validator:
    root = {"$ref": ref, "components": vendor["components"]}
    return OAS30Validator(root)


@pytest.fixture(scope="session")
def answer_schema(vendor_schemas: dict[str, Any]) -> Check:
    """check(operation, json): raise when `json` is not a valid 200 answer of the vendor's `operation`
    ("POST /address/search/v1", ...), naming every violation."""
    cache: dict[str, OAS30Validator] = {}

    def check(operation: str, body: Any) -> None:
        if operation not in cache:
            cache[operation] = _validator(vendor_schemas, vendor_schemas["operations"][operation]["responses"]["200"]
                                          ["$ref"])
        errors = sorted(cache[operation].iter_errors(body), key=lambda e: list(e.path))
        assert not errors, f"{operation}: " + "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:10])

    return check


@pytest.fixture(scope="session")
def request_schema(vendor_schemas: dict[str, Any]) -> Check:
    """check(operation, json): the request body a test sends is one the vendor would accept."""

    def check(operation: str, body: Any) -> None:
        ref = vendor_schemas["operations"][operation]["requestBody"]["$ref"]
        schema = vendor_schemas["components"]["schemas"][ref.rsplit("/", 1)[-1]]
        # The published AddressLookupV2Request requires `components` but lists no such property and allows no
        # others: no body can satisfy both, so a required member the schema does not define is not asked for.
        undefined = {r for r in schema.get("required", ()) if r not in schema.get("properties", {})}
        errors = [e for e in _validator(vendor_schemas, ref).iter_errors(body)
                  if not (e.validator == "required" and any(f"'{r}'" in e.message for r in undefined))]
        assert not errors, f"{operation} request: " + "; ".join(e.message for e in errors[:10])

    return check


@pytest.fixture(scope="session")
def alameda_csv(shared_dir: Path) -> Path:
    return shared_dir / "data" / "openaddresses" / "alameda.csv"


@pytest.fixture(scope="session")
def served(alameda_csv: Path) -> Iterator[ServedProcess]:
    """`dqkit serve --reference alameda.csv` with a token (passed explicitly, so no demo data is involved)."""
    with serve_process(tokens=[TOKEN], references=[alameda_csv], startup_timeout=180) as server:
        yield server
