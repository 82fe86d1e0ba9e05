"""The address paths of seed 001 and of the vendor's published API, each with and without a trailing slash.

    POST /address/search/v1                          search (autocomplete, singleline, typedown)
    POST /address/validate/v1                        validate (Add-Components, Add-Metadata, Add-Enrichment)
    POST /address/suggestions/refine/v1/{key}        refine a list or a suggestion: {"refinement": "..."}
    GET  /address/format/v1/{key}                    format with the default layout (Add-* headers)
    POST /address/format/v1/{key}                    format with a FormatRequest body (layouts, attributes)
    POST /address/suggestions/format/v1              search and format in one call
    GET  /address/suggestions/stepin/v1/{key}        step into a group (POST too; `stepIn` spelling too)
    POST /address/suggestions/stepIn                 the seed's legacy step in, the key in the body
    POST /address/lookup/v2, /address/lookup/v1      lookup by key (postal_code, locality)
    GET  /address/datasets/v1?country_iso=usa        datasets this server holds, by country

A validate answer's note (what it did not check or had to change: `ValidateResponse.note`) is the `X-Dqkit-Note`
response header, percent-encoded where not printable ASCII; the client reads it back into the same field.

Headers checked here, as the vendor documents them: `Timeout-Seconds` a whole number from 2 to 15, `Add-*` true or
false, `Reference-Id` at most 256 word characters, "-/:.,()" or spaces; anything else is a 400 naming the header.
`format` and `stepin` URLs in answers are absolute, built from `--public-url` (`dqkit.server.public_url`: never an
arbitrary Host header). `country_iso` is accepted in any case. A dataset the server does not hold is a 403 (the
vendor's answer for a dataset the token is not entitled to). Bodies are JSON; a body without a required member, or
that does not decode to the request model, is a 400 that names the member (`datasets` may be left out: the
country's dataset is used).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from dqkit.backends.base import SuggestionsFormatBackend
from dqkit.contract.address import (
    MAX_SUGGESTIONS,
    NOTE_HEADER,
    SEARCH_REQUIRED,
    Answer,
    DatasetsCountry,
    DatasetsResponse,
    FormatRequest,
    LookupRequest,
    RefineRequest,
    SearchRequest,
    SearchType,
    Suggestion,
    SuggestionsFormatRequest,
    note_to_header,
)
from dqkit.contract.address_components import AddOns
from dqkit.contract.errors import BadRequestError, NotFoundError, PermissionDeniedError, ServiceError
from dqkit.engines.address.cache import BytesLRU
from dqkit.server.engines import ServerEngines, run_engine
from dqkit.server.errors import clip, service_error_bytes
from dqkit.server.public_url import public_base

S = TypeVar("S")
Handler = Callable[[Request], Awaitable[Response]]
_encoder = msgspec.json.Encoder()

FORMAT_PATH: Final = "address/format/v1/"
STEPIN_PATH: Final = "address/suggestions/stepin/v1/"
TIMEOUT_RANGE: Final = (2, 15)
MAX_NOTE_CHARS: Final = 1024  # of an X-Dqkit-Note (percent-encoded, at most 9 bytes a character)
REFERENCE_ID_RE: Final = re.compile(r"^[\w\-/:.,() ]{1,256}$")
_TRUE: Final = frozenset({"true", "1", "yes"})
_FALSE: Final = frozenset({"false", "0", "no", ""})
# Which body members each request must carry; the published schema also requires `datasets`, see the docstring.
REQUIRED_MEMBERS: Final[dict[str, tuple[str, ...]]] = {
    "SearchRequest": tuple(m for m in SEARCH_REQUIRED if m != "datasets"),
    "SuggestionsFormatRequest": tuple(m for m in SEARCH_REQUIRED if m != "datasets"),
    "LookupRequest": ("country_iso", "key"),
    "RefineRequest": ("refinement",),
    "StepInRequest": ("global_address_key",),
}


class StepInRequest(msgspec.Struct, kw_only=True):
    global_address_key: str


def _json(obj: Any, status: int = 200) -> Response:
    return Response(_encoder.encode(obj), status_code=status, media_type="application/json")


def _noted(answer: Answer) -> Response:
    """The answer as JSON, with its note (`Answer.note`) in `X-Dqkit-Note`: the published result allows no
    extra member, so the note travels beside it."""
    out = _json(answer)
    if answer.note:  # at most MAX_NOTE_CHARS of it: a request naming 10,000 layouts made a 2.7 MB header
        out.headers[NOTE_HEADER] = note_to_header(clip(answer.note, MAX_NOTE_CHARS))
    return out


def _error(exc: ServiceError, request: Request) -> Response:
    return Response(service_error_bytes(exc, request.url.path), status_code=exc.status,
                    media_type="application/json")


def _decode(body: bytes, model: type[S], *, empty_ok: bool = False) -> S:
    """The body as `model`; a 400 naming what is wrong (missing members, unknown ones beside them, bad types)."""
    if not body.strip():
        if empty_ok:
            return msgspec.json.decode(b"{}", type=model)
        raise BadRequestError(f"a JSON body ({model.__name__}) is required")
    try:
        raw = msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        raise BadRequestError(f"the body is not JSON: {exc}") from None
    except UnicodeDecodeError as exc:  # msgspec decodes a string's bytes with Python's codec
        raise BadRequestError(f"the body is not valid UTF-8 ({exc.reason}); JSON text must be UTF-8") from None
    if not isinstance(raw, dict):
        raise BadRequestError(f"the body must be a JSON object ({model.__name__})")
    missing = [m for m in REQUIRED_MEMBERS.get(model.__name__, ()) if m not in raw]
    if missing:
        known = set(getattr(model, "__struct_fields__", ()))
        unknown = [k for k in raw if k not in known]
        raise BadRequestError(
            f"the body is missing the required field{'s' if len(missing) > 1 else ''} "
            f"{', '.join(repr(m) for m in missing)}"
            + (f"; these fields are not part of {model.__name__}: {', '.join(repr(k) for k in unknown)}"
               if unknown else ""))
    try:
        return msgspec.convert(raw, type=model)
    except msgspec.ValidationError as exc:
        raise BadRequestError(f"the body is not a valid {model.__name__}: {exc}") from None


def _path_key(request: Request) -> str:
    key = str(request.path_params.get("key", "")).strip("/")
    if not key:
        raise BadRequestError("the path needs a global_address_key or suggestions_key")
    return key


def _flag(request: Request, name: str) -> bool:
    raw = request.headers.get(name)
    if raw is None:
        return False
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise BadRequestError(f"the {name} header must be true or false (got {raw[:20]!r})")


def add_ons(request: Request, *, enrichment: bool = True) -> AddOns:
    """The Add-Components / Add-Metadata / Add-Enrichment headers of a request."""
    return AddOns(components=_flag(request, "Add-Components"), metadata=_flag(request, "Add-Metadata"),
                  enrichment=enrichment and _flag(request, "Add-Enrichment"))


def check_headers(request: Request) -> None:
    """Timeout-Seconds (2..15, whole seconds) and Reference-Id (the vendor's pattern), as the vendor checks them."""
    raw = request.headers.get("timeout-seconds")
    if raw is not None:
        lo, hi = TIMEOUT_RANGE
        text = raw.strip()
        if not (text.isascii() and text.isdigit() and len(text) <= 3 and lo <= int(text) <= hi):
            raise BadRequestError(f"Timeout-Seconds must be a whole number of seconds from {lo} to {hi} "
                                  f"(got {text[:20]!r})")
    ref = request.headers.get("reference-id")
    if ref is not None and not REFERENCE_ID_RE.match(ref):
        raise BadRequestError("Reference-Id must be 1 to 256 letters, digits or the characters - / : . , ( ) "
                              "and space")


def absolute_urls(suggestions: Sequence[Suggestion], base: str) -> None:
    """Make `format` URLs absolute and give group suggestions their `stepin` URL (in place)."""
    for s in suggestions:
        if s.format:
            if not s.format.startswith(("http://", "https://")):
                s.format = base + s.format.lstrip("/")
        elif s.global_address_key and s.attribute("multiples") == "true":
            s.stepin = f"{base}{STEPIN_PATH}{s.global_address_key}"


# Encoded search answers kept by the server (autocomplete repeats its first keystrokes across users; the index
# never changes while the server runs, so an answer stays right). Bounded in bytes, keys and values counted: a key is
# a whole encoded request, so an entry count alone would bound nothing. Both event loops touch it (locked).
SEARCH_CACHE_BYTES: Final = 32 << 20


class AddressRoutes:
    """The handlers, bound to the server's engines."""

    def __init__(self, engines: ServerEngines) -> None:
        self.engines = engines
        self.search_cache = BytesLRU(SEARCH_CACHE_BYTES)

    def _guarded(self, fn: Callable[[Request], Awaitable[Any]]) -> Handler:
        async def handler(request: Request) -> Response:
            try:
                check_headers(request)
                result = await fn(request)
            except ServiceError as exc:
                return _error(exc, request)
            if isinstance(result, Response):
                return result
            if isinstance(result, bytes):
                return Response(result, media_type="application/json")
            return _json(result)

        return handler

    def _check_datasets(self, country_iso: str, datasets: list[str]) -> None:
        held = self.engines.loaded.dataset_ids
        for ds in datasets:
            if ds.lower() not in held:
                raise PermissionDeniedError(f"this server holds no dataset {ds!r} (it holds: "
                                            f"{', '.join(sorted(held)) or 'none'})")

    def _search_request(self, body: bytes) -> SearchRequest:
        req = _decode(body, SearchRequest)
        req = msgspec.structs.replace(req, country_iso=req.country_iso.strip().upper(),
                                      datasets=[d.strip().lower() for d in req.datasets])
        self._check_datasets(req.country_iso, req.datasets)
        if req.max_suggestions is not None:
            ceiling = MAX_SUGGESTIONS[req.search_type]
            if not 1 <= req.max_suggestions <= ceiling:
                raise BadRequestError(f"max_suggestions must be between 1 and {ceiling} for "
                                      f"{req.search_type.value} searches")
        for opt in req.options:
            if opt.name.lower() == "search_type" and opt.value.lower() not in {s.value for s in SearchType}:
                raise BadRequestError(f"unknown search_type {opt.value!r}; use "
                                      f"{', '.join(s.value for s in SearchType)}")
        return req

    async def search(self, request: Request) -> Any:
        req = self._search_request(await request.body())
        base = public_base(request, self.engines.config)
        key = base.encode() + b"\x00" + _encoder.encode(req)
        cached = self.search_cache.get(key)
        if cached is None:
            answer = await run_engine(self.engines.address.search, req)
            absolute_urls(answer.result.suggestions, base)
            cached = _encoder.encode(answer)
            self.search_cache.put(key, cached)
        return cached

    async def validate(self, request: Request) -> Any:
        add = add_ons(request)
        req = self._search_request(await request.body())
        answer = await run_engine(self.engines.address.validate, req, add)
        absolute_urls(answer.result.suggestions, public_base(request, self.engines.config))
        return _noted(answer)

    async def refine(self, request: Request) -> Any:
        key = _path_key(request)
        body = _decode(await request.body(), RefineRequest, empty_ok=True)
        answer = await run_engine(self.engines.address.refine, key, body.refinement)
        absolute_urls(answer.result.suggestions, public_base(request, self.engines.config))
        return answer

    async def format(self, request: Request) -> Any:
        key = _path_key(request)
        add = add_ons(request)
        fmt: FormatRequest | None = None
        if request.method == "POST":
            fmt = _decode(await request.body(), FormatRequest, empty_ok=True)
        return _noted(await run_engine(self.engines.address.format, key, fmt, add))

    async def suggestions_format(self, request: Request) -> Any:
        add = add_ons(request, enrichment=False)
        req = _decode(await request.body(), SuggestionsFormatRequest)
        req = msgspec.structs.replace(req, country_iso=req.country_iso.strip().upper(),
                                      datasets=[d.strip().lower() for d in req.datasets])
        self._check_datasets(req.country_iso, req.datasets)
        if req.max_suggestions is not None and not 1 <= req.max_suggestions <= MAX_SUGGESTIONS[SearchType.SINGLELINE]:
            raise BadRequestError("max_suggestions must be between 1 and 100")
        backend = self.engines.address
        if not isinstance(backend, SuggestionsFormatBackend):
            raise NotFoundError("this server's address backend cannot search and format in one call")
        return await run_engine(backend.suggestions_format, req, add)

    async def step_in(self, request: Request) -> Any:
        if "key" in request.path_params:
            key = _path_key(request)
        else:
            key = _decode(await request.body(), StepInRequest).global_address_key.strip()
            if not key:
                raise BadRequestError("global_address_key is empty")
        answer = await run_engine(self.engines.address.step_in, key)
        absolute_urls(answer.result.suggestions, public_base(request, self.engines.config))
        return answer

    async def lookup(self, request: Request) -> Any:
        req = _decode(await request.body(), LookupRequest)
        req = msgspec.structs.replace(req, country_iso=req.country_iso.strip().upper(),
                                      datasets=[d.strip().lower() for d in req.datasets])
        self._check_datasets(req.country_iso, req.datasets)
        for name, value in (("max_suggestions", req.max_suggestions), ("max_addresses", req.max_addresses)):
            if value is not None and not 1 <= value <= 1000:
                raise BadRequestError(f"{name} must be between 1 and 1000")
        answer = await run_engine(self.engines.address.lookup, req)
        base = public_base(request, self.engines.config)
        for a in answer.addresses:
            if a.format and not a.format.startswith(("http://", "https://")):
                a.format = base + a.format.lstrip("/")
        return answer

    async def datasets(self, request: Request) -> Any:
        country = request.query_params.get("country_iso", "").strip().upper() or None
        return DatasetsResponse(DatasetsCountry.group(await run_engine(self.engines.address.datasets, country)))

    def handlers(self) -> dict[str, Handler]:
        return {name: self._guarded(getattr(self, name))
                for name in ("search", "validate", "refine", "format", "suggestions_format", "step_in", "lookup",
                             "datasets")}
