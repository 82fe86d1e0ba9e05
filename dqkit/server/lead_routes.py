"""`POST /search`, at `/search` and at the vendor's `/els/rest/enrich/v1/search`.

Any other method (GET with the lead in query parameters included) is answered 405 with `Allow: POST`: the seed's
operation is POST, and a lead in a URL would land in every access log and proxy on the way. The query string is
blanked in the ASGI scope before the answer, so uvicorn's access log line holds the path only.

Representations: the request may be JSON, XML or form data (urlencoded or multipart), recognised by Content-Type
and, without one, by the first byte of the body. The answer is an ELSGenericMessage:
- in XML when the request was XML, in JSON otherwise;
- unless `Accept` prefers the other one explicitly (`application/json` over `application/xml`/`text/xml` or the
  reverse, by q-value); wildcards and unknown types express no preference. There is no 406: the service always
  answers in one of its two formats.
Decoding uses `dqkit.contract.lead_wire`, the same code the clients encode with.
The HTTP status follows the RESULT_CODE (see `dqkit.server.status`).
"""

from __future__ import annotations

import logging
from typing import Literal

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from dqkit.contract.lead import ELSGenericMessage, LeadRequest
from dqkit.contract.lead_wire import (
    MAX_FORM_FIELDS,
    WireProblem,
    decode_lead,
    decode_lead_pairs,
    encode_message,
    sniff_format,
)
from dqkit.server.engines import ServerEngines, run_engine
from dqkit.server.status import lead_http_status

ResponseFormat = Literal["json", "xml"]
_JSON_TYPES = frozenset({"application/json", "text/json"})
_XML_TYPES = frozenset({"application/xml", "text/xml"})


log = logging.getLogger("dqkit.server")

def negotiate(accept: str, default: ResponseFormat) -> ResponseFormat:
    """JSON or XML from an Accept header: the explicitly named one with the higher q wins; else `default`."""
    best = {"json": -1.0, "xml": -1.0}
    for part in accept.split(","):
        media, _, params = part.partition(";")
        media = media.strip().lower()
        kind = "json" if media in _JSON_TYPES or media.endswith("+json") else (
            "xml" if media in _XML_TYPES or media.endswith("+xml") else "")
        if not kind:
            continue
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 0.0
        best[kind] = max(best[kind], q)
    if best["json"] > best["xml"] and best["json"] > 0:
        return "json"
    if best["xml"] > best["json"] and best["xml"] > 0:
        return "xml"
    return default


def _unclosed_multipart(content_type: str, body: bytes) -> WireProblem | None:
    """E300 for a multipart body without its closing delimiter: python-multipart reads a truncated body as a form
    with no fields, which would otherwise be answered as a lead with no name (E600) instead of an unreadable one."""
    boundary = next((p.split("=", 1)[1].strip().strip('"') for p in content_type.split(";")[1:]
                     if p.strip().lower().startswith("boundary=")), "")
    if not boundary:
        return WireProblem("E300", "malformed multipart form data: the Content-Type names no boundary")
    if b"--" + boundary.encode("latin-1", "replace") + b"--" not in body:
        return WireProblem("E300", "malformed multipart form data: the body ends before its closing boundary")
    return None


async def _read_lead(request: Request) -> tuple[LeadRequest | WireProblem, ResponseFormat]:
    """The lead of a request and the response format its representation implies."""
    content_type = request.headers.get("content-type", "")
    if content_type.split(";", 1)[0].strip().lower() == "multipart/form-data":
        problem = _unclosed_multipart(content_type, await request.body())
        if problem is not None:
            return problem, "json"
        try:
            async with request.form(max_files=0, max_fields=MAX_FORM_FIELDS) as form:
                pairs = [(k, v) for k, v in form.multi_items() if isinstance(v, str)]
        except Exception as exc:  # python-multipart raises several types for broken bodies
            return WireProblem("E300", f"malformed multipart form data: {exc}"), "json"
        return decode_lead_pairs(pairs), "json"
    body = await request.body()
    fmt = sniff_format(body, content_type)
    return decode_lead(body, content_type), "xml" if fmt == "xml" else "json"


def lead_endpoint(engines: ServerEngines) -> object:
    """The route handler, bound to the server's engines."""

    async def search(request: Request) -> Response:
        if request.method != "POST":
            return _method_not_allowed(request)
        client = request.client.host if request.client else None
        if not engines.config.ip_allowed(client):
            fmt = _default_format(request)
            msg = engines.lead_engine.error_message("E500", f"requests from {client} are not allowed")
            return _answer(msg, negotiate(request.headers.get("accept", ""), fmt))
        fmt = negotiate(request.headers.get("accept", ""), _default_format(request))
        try:
            lead, read_fmt = await _read_lead(request)
            fmt = negotiate(request.headers.get("accept", ""), read_fmt)
            if isinstance(lead, WireProblem):
                return _answer(engines.lead_engine.reject(lead), fmt)
            msg = await run_engine(engines.lead.verify_lead, lead)
            return _answer(msg, fmt)
        except RecursionError:
            raise  # too deeply nested: the app's 400
        except Exception:  # a fault of the server, not of the caller: the seed's E400 (500, which clients retry)
            log.exception("dqkit serve: internal error on %s", request.url.path)
            msg = engines.lead_engine.error_message("E400", "internal error: the lead was not processed; retry")
        return _answer(msg, fmt)

    return search


def _method_not_allowed(request: Request) -> Response:
    """405 for anything but POST; the query string (maybe a lead) is dropped from the scope the log reads."""
    request.scope["query_string"] = b""
    body = msgspec.json.encode({"error": {
        "type": "method_not_allowed", "title": "Method Not Allowed",
        "detail": f"{request.method} is not accepted: send the lead with POST (JSON, XML or form data in the "
                  "body), never in the URL", "instance": request.url.path}})
    return Response(body, status_code=405, media_type="application/json", headers={"Allow": "POST"})


def _default_format(request: Request) -> ResponseFormat:
    ct = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return "xml" if ct.endswith("xml") else "json"


def _answer(msg: ELSGenericMessage, fmt: ResponseFormat) -> Response:
    body, content_type = encode_message(msg, fmt)
    return Response(body, status_code=lead_http_status(msg.message.result_code), media_type=content_type)
