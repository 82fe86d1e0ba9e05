"""Property-based run of every documented operation (schemathesis) against a real `dqkit serve`: no 5xx ever,
and every answer matches the document (status code, content type, body schema).

The operations come from the same document the server serves (built from the contract models); each is one
test case, with a few examples each and a fixed seed, so the whole run takes seconds and is reproducible.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from http_helpers import TEST_TOKEN
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from dqkit.server.config import ServerConfig
from dqkit.server.openapi import openapi_document
from dqkit.server.testing import ServedProcess

SCHEMA = schemathesis.openapi.from_dict(openapi_document(ServerConfig(tokens=frozenset({TEST_TOKEN}))))
OPERATIONS = {op.label: op for op in (r.ok() for r in SCHEMA.get_all_operations())}  # type: ignore[union-attr]
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def test_the_served_document_is_the_one_tested(dqkit_server: ServedProcess) -> None:
    import httpx

    served = httpx.get(dqkit_server.url + "/openapi.json").json()
    assert set(served["paths"]) == {op.path for op in OPERATIONS.values()}


@pytest.mark.parametrize("label", sorted(OPERATIONS))
def test_operation_never_answers_5xx(dqkit_server: ServedProcess, label: str) -> None:
    operation = OPERATIONS[label]

    @given(case=operation.as_strategy())
    @settings(max_examples=15, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def run(case: Any) -> None:
        case.call_and_validate(base_url=dqkit_server.url, headers={"Auth-Token": TEST_TOKEN}, checks=CHECKS,
                               timeout=30)

    run()
