"""The OpenAPI 3.1 document of `dqkit serve`, built from the contract models so it cannot drift from them.

Schemas of the address service and of ELSGenericMessage come from msgspec (the same structs that encode the
wire); the lead *request* is grouped on the JSON wire and flat on the form, so those two schemas are built here
from the field tables of `dqkit.contract.lead`.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from dqkit._version import __version__
from dqkit.contract.address import (
    DatasetsResponse,
    FormatRequest,
    FormatResponse,
    LookupRequest,
    LookupResponse,
    RefineRequest,
    SearchRequest,
    SearchResponse,
    SuggestionsFormatRequest,
    SuggestionsFormatResponse,
    ValidateResponse,
)
from dqkit.contract.address_bulk import (
    BatchListResponse,
    BatchRefResponse,
    BatchResultsResponse,
    BatchStatusResponse,
    BulkCreateRequest,
)
from dqkit.contract.errors import ErrorBody
from dqkit.contract.lead import (
    ADDRESS_FIELDS,
    CUSTOMER_FIELDS,
    FIELD_MAX_LENGTH,
    MAX_ATTRIBUTES,
    NAME_FIELDS,
    PHONE_FIELDS,
    ELSGenericMessage,
)
from dqkit.server.config import ServerConfig
from dqkit.server.operations import OPERATIONS
from dqkit.server.status import status_table_markdown

REF: Final = "#/components/schemas/{name}"
_TYPE_FIELDS: Final = frozenset({"ADDRESS_TYPE", "PHONE_TYPE"})


def _field_schema(name: str, words: bool) -> dict[str, Any]:
    if name in _TYPE_FIELDS:
        return {"type": "string", "enum": ["H", "B", "Home", "Business", ""] if words else ["H", "B", ""]}
    limit = FIELD_MAX_LENGTH.get(name)
    return {"type": "string", **({"maxLength": limit} if limit else {})}


def _group(names: tuple[str, ...], words: bool = True) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False,
            "properties": {n: _field_schema(n, words) for n in names}}


def lead_json_schema() -> dict[str, Any]:
    """The grouped JSON representation of a lead request (seed 000, section 2.1)."""
    return {
        "type": "object",
        "additionalProperties": False,
        "description": "Field names are case-insensitive. The seed reserves the characters \" and & in JSON "
                       "input (E300).",
        "properties": {
            "LEAD_TRANS_DETAILS": _group(NAME_FIELDS),
            "LEAD_ADDRESS": _group(ADDRESS_FIELDS),
            "CUSTOMER": _group(CUSTOMER_FIELDS),
            "LEAD_PHONE": {"type": "array", "items": _group(PHONE_FIELDS)},
            "LEAD_ATTRIBUTE": {"type": "array", "maxItems": MAX_ATTRIBUTES,
                               "items": _group(("ATTRIBUTE_NAME", "ATTRIBUTE_VALUE"))},
        },
    }


def lead_form_schema() -> dict[str, Any]:
    """The flat form representation (PHONE_* and ATTRIBUTE_* may repeat)."""
    names = (*NAME_FIELDS, *ADDRESS_FIELDS, *CUSTOMER_FIELDS, *PHONE_FIELDS, "ATTRIBUTE_NAME", "ATTRIBUTE_VALUE")
    return {"type": "object", "additionalProperties": False,
            "properties": {n: _field_schema(n, words=False) for n in names}}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(name=name)}


def _json_content(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


_ERROR_TEXT: Final[dict[int, str]] = {
    400: "The request is not valid (body, parameters or Timeout-Seconds)",
    401: "Missing or wrong Auth-Token header, or a token in the query string",
    403: "The dataset asked for is not held by this server",
    404: "Unknown path, or a key this index does not know",
    408: "The request took longer than its Timeout-Seconds",
    413: "The request body is over the server's limit",
    429: "The per-token rate limit is reached; see Retry-After and X-Rate-Limit-Reset",
    500: "Internal error",
    503: "The engines are still loading; retry after Retry-After seconds",
}
_RATE_HEADERS: Final = {
    "Reference-Id": {"description": "The request's Reference-Id, echoed", "schema": {"type": "string"}},
    "X-Rate-Limit-Limit": {"description": "Requests allowed per window (when a limit is set)",
                           "schema": {"type": "string"}},
    "X-Rate-Limit-Remaining": {"description": "Requests left in this window", "schema": {"type": "string"}},
    "X-Rate-Limit-Reset": {"description": "Epoch seconds at which the window resets",
                           "schema": {"type": "string"}},
}


def _errors(*statuses: int) -> dict[str, Any]:
    body = _json_content(_ref("ErrorBody"))
    return {str(s): {"description": _ERROR_TEXT[s], "headers": _RATE_HEADERS, "content": body} for s in statuses}


_COMMON_ERRORS: Final = (400, 401, 403, 404, 408, 413, 429, 500, 503)
_HEADER_PARAMS: Final[list[dict[str, Any]]] = [
    {"name": "Reference-Id", "in": "header", "required": False,
     "description": "A UUID for end-to-end tracing; echoed in the response header of the same name",
     "schema": {"type": "string", "pattern": "^[A-Za-z0-9-]{1,64}$"}},
    {"name": "Timeout-Seconds", "in": "header", "required": False,
     "description": "Give up after this many seconds (HTTP 408). Capped at the server's timeout (15 s by "
                    "default); fractions are accepted. The vendor accepts 2 to 15.",
     "schema": {"type": "number", "exclusiveMinimum": 0, "maximum": 15}},
]
# The address service's headers, as the vendor publishes them.
_ADDRESS_HEADERS: Final[list[dict[str, Any]]] = [
    {"name": "Reference-Id", "in": "header", "required": False,
     "description": "For end-to-end tracing (a UUID, say); echoed in the response header of the same name",
     "schema": {"type": "string", "minLength": 1, "maxLength": 256, "pattern": r"^[\w\-\/\:\.\,\(\) ]+$"}},
    {"name": "Timeout-Seconds", "in": "header", "required": False,
     "description": "Give up after this many seconds (HTTP 408); 2 to 15, default 15 (or the server's timeout)",
     "schema": {"type": "integer", "minimum": 2, "maximum": 15}},
]


def _add_header(name: str, what: str) -> dict[str, Any]:
    return {"name": name, "in": "header", "required": False, "description": what,
            "schema": {"type": "boolean", "default": False}}


_ADD_COMPONENTS: Final = _add_header("Add-Components", "Add the nested component breakdown to the result")
_ADD_METADATA: Final = _add_header("Add-Metadata", "Add the top-level metadata the reference supports "
                                                   "(address classification; barcode and carrier route only "
                                                   "from a reference that carries them)")
_ADD_ENRICHMENT: Final = _add_header("Add-Enrichment", "Add geocodes (latitude, longitude) of the reference point")
_KEY_PARAM: Final = {"name": "key", "in": "path", "required": True,
                     "description": "A global_address_key or suggestions_key from an earlier answer",
                     "schema": {"type": "string", "minLength": 1, "pattern": "^[A-Za-z0-9_.~-]+$"}}


_BATCH_ID: Final = {"name": "batch_id", "in": "path", "required": True, "description": "A batch_id from create",
                    "schema": {"type": "string", "minLength": 1, "maxLength": 64}}


_PAGE: Final = [
    {"name": "limit", "in": "query", "required": False, "description": "batches in one page, 1 to 1000 (default 100)",
     "schema": {"type": "integer", "minimum": 1, "maximum": 1000}},
    {"name": "offset", "in": "query", "required": False, "description": "batches skipped (default 0)",
     "schema": {"type": "integer", "minimum": 0}},
]


def _bulk_paths(addr: Any, adds: list[dict[str, Any]]) -> dict[str, Any]:
    """The vendor's bulk batch operations (`dqkit.server.bulk`)."""
    extra = _add_header("Add-ExtraMatchInfo", "Add match_info to every answer of the batch")
    one = "/address/bulk/v1/batches/{batch_id}"
    return {
        "/address/bulk/v1/batches": {
            "post": addr("bulkCreate", "Create a batch of up to 10,000 addresses", "BatchRefResponse",
                         body="BulkCreateRequest", params=[*adds[:2], extra]),
            "get": addr("bulkList", "The caller's batches, oldest first, a page at a time (`limit`, `offset`; "
                        "`X-Total-Count` and a `Link` to the next page)", "BatchListResponse", params=_PAGE),
        },
        one: {"get": addr("bulkStatus", "A batch's status", "BatchStatusResponse", params=[_BATCH_ID, adds[1]]),
              "delete": addr("bulkRemove", "Remove a batch now (one at work stops); it no longer counts against the "
                             "caller's quota", "BatchRefResponse", params=[_BATCH_ID])},
        one + "/start": {"post": addr("bulkStart", "Start a batch", "BatchRefResponse", params=[_BATCH_ID])},
        one + "/stop": {"post": addr("bulkStop", "Stop a batch (its answers so far are kept)", "BatchRefResponse",
                                     params=[_BATCH_ID])},
        one + "/results": {"get": addr("bulkResults", "A batch's answers, in input order, with statistics",
                                       "BatchResultsResponse", params=[_BATCH_ID])},
    }


def _op(op_id: str, summary: str, ok: dict[str, Any], *, body: dict[str, Any] | None = None,
        params: list[dict[str, Any]] | None = None, errors: tuple[int, ...] = _COMMON_ERRORS,
        headers: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "operationId": op_id,
        "summary": summary,
        "parameters": [*(_HEADER_PARAMS if headers is None else headers), *(params or [])],
        "responses": {"200": {"description": "OK", "headers": _RATE_HEADERS, "content": ok}, **_errors(*errors)},
    }
    if body is not None:
        out["requestBody"] = {"required": True, "content": body}
    return out


def _description() -> str:
    return f"""The lead verification service (seed 000) and the address validation service (seed 001), served by
dqkit's local engine with the vendor's wire formats.

**Paths.** The lead operation is at `/search` and at the vendor's path `/els/rest/enrich/v1/search`. Every path
also answers with a trailing slash. Address answers have the shapes of the vendor's published OpenAPI document
(nested `components`, top-level `metadata` and `enrichment`, datasets by country); `format` and `stepin` URLs are
absolute. Aliases: `/address/lookup/v1` (seed 001) = `/address/lookup/v2`;
`/address/suggestions/stepIn/v1/{{key}}` = `/address/suggestions/stepin/v1/{{key}}`.

**Authentication.** The `Auth-Token` header, when the server was started with `--token`. A token in the query
string is refused with 401 (and is not logged).

**Lead representations.** JSON, XML or form data in; ELSGenericMessage out, in XML when the request was XML and
in JSON otherwise, unless `Accept` explicitly prefers the other format.

**HTTP status of each lead RESULT_CODE** (the body is an ELSGenericMessage in all of these):

{status_table_markdown()}

401, 408, 413, 429 and 503 answers on the lead path carry the error body below, not an ELSGenericMessage.

**Errors** use the body `{{"error": {{"type", "title", "detail", "instance"}}}}` with 400, 401, 403, 404, 405, 408,
413, 429, 500 or 503. **Rate limit** (off unless `--rate-limit` is set): per token, answered with 429,
`Retry-After` and `X-Rate-Limit-Limit` / `X-Rate-Limit-Remaining` / `X-Rate-Limit-Reset` (epoch seconds).
"""


def openapi_document(config: ServerConfig | None = None) -> dict[str, Any]:
    config = config or ServerConfig()
    _, components = msgspec.json.schema_components(
        [SearchRequest, SearchResponse, ValidateResponse, RefineRequest, FormatRequest, FormatResponse,
         SuggestionsFormatRequest, SuggestionsFormatResponse, LookupRequest, LookupResponse, DatasetsResponse,
         ErrorBody, ELSGenericMessage],
        ref_template=REF,
    )
    from dqkit.server.address_routes import REQUIRED_MEMBERS, StepInRequest

    _, step_components = msgspec.json.schema_components([StepInRequest], ref_template=REF)
    components.update(step_components)
    _, bulk_components = msgspec.json.schema_components(
        [BulkCreateRequest, BatchRefResponse, BatchStatusResponse, BatchListResponse, BatchResultsResponse],
        ref_template=REF)
    components.update(bulk_components)
    for name, required in REQUIRED_MEMBERS.items():  # what the server checks on the wire
        if name in components and name != "RefineRequest":
            components[name]["required"] = sorted({*components[name].get("required", ()), *required})
    components["LeadJson"] = lead_json_schema()
    components["LeadForm"] = lead_form_schema()
    message = _ref("ELSGenericMessage")
    lead_out = {"application/json": {"schema": message},
                "application/xml": {"schema": {"type": "string", "description": "<ELSGenericMessage> document"}}}
    lead_answers = {code: {"description": text, "content": lead_out} for code, text in (
        ("400", "E300: the request could not be read"),
        ("403", "E500 (IP address not allowed) or E501 (unknown CLIENT_ID or PARTNER_ID)"),
        ("500", "E400: internal error"),
    )}
    lead_post = _op("verifyLead", "Verify one lead", lead_out, body={
        "application/json": {"schema": _ref("LeadJson")},
        "application/x-www-form-urlencoded": {"schema": _ref("LeadForm")},
        "application/xml": {"schema": {"type": "string",
                                       "description": "<elsgenericmessage> with customer, lead_trans_details, "
                                                      "lead_phone*, lead_address, lead_attribute*"}},
    }, errors=(401, 408, 413, 429, 503))
    lead_post["responses"].update(lead_answers)
    lead_item = {"post": lead_post}  # GET is refused (405): a lead in a URL would land in access logs
    country_param = {"name": "country_iso", "in": "query", "required": False,
                     "description": "Three-letter country code, any case", "schema": {"type": "string"}}
    routed = {op.handler for op in OPERATIONS}

    def addr(op_id: str, summary: str, answer: str, *, body: str | None = None,
             params: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        return _op(op_id, summary, _json_content(_ref(answer)), params=params, headers=_ADDRESS_HEADERS,
                   body=_json_content(_ref(body)) if body else None)

    adds = [_ADD_COMPONENTS, _ADD_METADATA, _ADD_ENRICHMENT]
    paths: dict[str, Any] = {
        "/search": lead_item,
        "/els/rest/enrich/v1/search": {
            m: {**op, "operationId": op["operationId"] + "VendorPath"} for m, op in lead_item.items()},
        "/address/search/v1": {"post": addr("search", "Search (autocomplete, singleline or typedown)",
                                            "SearchResponse", body="SearchRequest")},
        "/address/validate/v1": {"post": addr("validate", "Validate one address", "ValidateResponse",
                                              body="SearchRequest", params=adds)},
        "/address/suggestions/refine/v1/{key}": {"post": addr(
            "refine", "Refine a suggestion list or a group suggestion", "SearchResponse", body="RefineRequest",
            params=[_KEY_PARAM])},
        "/address/format/v1/{key}": {
            "get": addr("formatDefault", "Format an address with the default layout", "FormatResponse",
                        params=[_KEY_PARAM, *adds]),
            "post": addr("format", "Format an address with chosen layouts (only the default layout exists here)",
                         "FormatResponse", body="FormatRequest", params=[_KEY_PARAM, *adds]),
        },
        "/address/suggestions/stepin/v1/{key}": {
            "get": addr("stepIn", "Step into a group suggestion", "SearchResponse", params=[_KEY_PARAM]),
            "post": addr("stepInPost", "Step into a group suggestion", "SearchResponse", params=[_KEY_PARAM]),
        },
        "/address/suggestions/stepIn": {"post": addr(
            "stepInBody", "The seed's legacy step in: the group's key in the body", "SearchResponse",
            body="StepInRequest")},
        "/address/lookup/v2": {"post": addr("lookup", "Look addresses up by a key (postal_code, locality)",
                                            "LookupResponse", body="LookupRequest")},
        "/address/datasets/v1": {"get": addr("datasets", "The datasets this server holds, by country",
                                             "DatasetsResponse", params=[country_param])},
        **({"/address/suggestions/format/v1": {"post": addr(
            "suggestionsFormat", "Search and format in one call", "SuggestionsFormatResponse",
            body="SuggestionsFormatRequest", params=[_ADD_COMPONENTS, _ADD_METADATA])}}
           if "suggestions_format" in routed else {}),
        **_bulk_paths(addr, adds),
        "/healthz": {"get": {"operationId": "healthz", "summary": "200 once the engines are ready", "security": [],
                             "responses": {"200": {"description": "ready"},
                                           "503": {"description": "still loading, or failed to load"}}}},
    }
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "dqkit serve", "version": __version__, "description": _description()},
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {"AuthToken": {"type": "apiKey", "in": "header", "name": "Auth-Token"}},
        },
    }
    if config.auth_required:
        doc["security"] = [{"AuthToken": []}]
    return doc
