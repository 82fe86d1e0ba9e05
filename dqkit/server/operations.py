"""The operations `dqkit serve` answers: path, methods, handler and aliases, read by the app (routes) and by the
OpenAPI document (which paths it describes), so neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Op:
    """One operation: its canonical path, methods, handler name and the aliases it also answers on."""

    path: str
    methods: tuple[str, ...]
    handler: str
    aliases: tuple[str, ...] = ()


OPERATIONS: Final[tuple[Op, ...]] = (
    Op("/search", ("GET", "POST"), "lead", ("/els/rest/enrich/v1/search",)),
    Op("/address/search/v1", ("POST",), "search"),
    Op("/address/validate/v1", ("POST",), "validate"),
    Op("/address/suggestions/refine/v1/{key:path}", ("POST",), "refine"),
    Op("/address/format/v1/{key:path}", ("GET", "POST"), "format"),
    Op("/address/suggestions/stepin/v1/{key:path}", ("GET", "POST"), "step_in",
       ("/address/suggestions/stepIn/v1/{key:path}",)),
    Op("/address/suggestions/stepIn", ("POST",), "step_in", ("/address/suggestions/stepin",)),
    Op("/address/lookup/v2", ("POST",), "lookup", ("/address/lookup/v1",)),
    Op("/address/suggestions/format/v1", ("POST",), "suggestions_format"),
    Op("/address/datasets/v1", ("GET",), "datasets"),
    Op("/address/bulk/v1/batches", ("POST",), "bulk_create"),
    Op("/address/bulk/v1/batches", ("GET",), "bulk_list"),
    Op("/address/bulk/v1/batches/{batch_id}/start", ("POST",), "bulk_start"),
    Op("/address/bulk/v1/batches/{batch_id}", ("GET",), "bulk_status"),
    Op("/address/bulk/v1/batches/{batch_id}/results", ("GET",), "bulk_results"),
    Op("/address/bulk/v1/batches/{batch_id}/stop", ("POST",), "bulk_stop"),
    Op("/address/bulk/v1/batches/{batch_id}", ("DELETE",), "bulk_remove"),
)
