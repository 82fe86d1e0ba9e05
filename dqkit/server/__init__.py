"""`dqkit serve`: the local engine behind the vendors' HTTP APIs, so any program can use it as if it were the vendor.

Start it with `dqkit serve [--host H] [--port P] [--token T ...] [--client-id ID ...] [--allow-ip CIDR ...]
[--reference FILE ...]`, or in Python with `dqkit.server.runner.serve(ServerConfig(...))`, or as an ASGI app
with `dqkit.server.app.create_app(config)`. Tests start a real server with `dqkit.server.testing.serve_process`.

Paths
    POST|GET /search, also /els/rest/enrich/v1/search     lead verification (seed 000)
    /address/...                                           address validation (seed 001; see address_routes)
    GET /healthz                                           200 once the engines are loaded (503 before)
    GET /openapi.json                                      the OpenAPI 3.1 document of every operation
Every path also answers with a trailing slash.

Lead representations: JSON, XML or form data in. The answer is XML when the request was XML and JSON otherwise,
unless `Accept` explicitly prefers the other format (q-values count; wildcards express no preference).

HTTP status of each lead RESULT_CODE (the body is an ELSGenericMessage in every case; `dqkit.server.status`):

    RESULT_CODE                               HTTP   why
    S100, S101, S102                          200    processed
    E100, E200, E600, E601, E602              200    processed: the outcome is about the lead's content
    E300                                      400    the request could not be read
    E500 (IP), E501 (CLIENT_ID/PARTNER_ID)    403    this caller or account may not use the service
    E400                                      500    internal error; clients retry it

Errors before a lead is read, and every address error, use the vendor's body
`{"error": {"type", "title", "detail", "instance"}}`:
    400 bad body, parameters or Timeout-Seconds    401 missing/wrong Auth-Token, or a token in the query string
    403 dataset not held                           404 unknown path or key    405 method not allowed
    408 Timeout-Seconds passed                     413 body over --max-body-bytes
    429 per-token rate limit (--rate-limit; Retry-After, X-Rate-Limit-Limit/-Remaining/-Reset)
    500 internal error                             503 engines still loading (Retry-After: 1)

`Reference-Id` is echoed on every answer; `Server-Timing: app;dur=<ms>` gives the server's own time.

Inside: the engines load in a background thread after the port opens (/healthz: 503 then 200); engine calls run
on a pool of DQKIT_ENGINE_THREADS (default 8) threads so a Timeout-Seconds deadline answers 408 on time; search
answers are kept in an LRU of 4,096 entries by normalized request (the index never changes while serving).
uvicorn uses httptools and uvloop when they are installed (measured ~30% less server CPU per request).
"""

from __future__ import annotations

from dqkit.server.config import ServerConfig

__all__ = ["ServerConfig"]
