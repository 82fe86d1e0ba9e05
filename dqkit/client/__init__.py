"""HTTP clients of the two services, for the vendor's endpoints or a local `dqkit serve`.

    from dqkit.client import LeadClient, AddressClient                # sync; also fine inside Jupyter
    from dqkit.client import AsyncLeadClient, AsyncAddressClient      # async, for your own event loop

Configuration
    base_url / token arguments, else the environment variables
        DQKIT_LEAD_URL, DQKIT_LEAD_TOKEN          lead service (requests go to {url}/search)
        DQKIT_ADDRESS_URL, DQKIT_ADDRESS_TOKEN    address service (requests go to {url}/address/...)
    The token is sent as the `Auth-Token` header only; it is held as a `Secret` that never shows in a repr, a
    log line, an exception or a URL (a base URL with credentials or a query string is refused).
    Keyword settings (`dqkit.client._policy.ClientSettings`): timeout=30 s per try, max_attempts=6,
    backoff_base=0.5, backoff_max=15, max_rate_waits=10, max_rate_wait=120 s, requests_per_second=None,
    max_concurrency=32, transport="aiohttp" (or "httpx"), headers={}.

Behaviour
    - Every request carries a fresh `Reference-Id` (UUID), kept across its retries. Single calls accept
      `reference_id=` (choose it to know it); batch items carry theirs in `BatchItem.reference_id`; errors name it.
    - Retries with exponential backoff and jitter on connection errors, client timeouts, 5xx and 408; on 429 the
      client (all its requests) waits as Retry-After / X-Rate-Limit-Reset say; other 4xx are never retried.
    - Client-side limits: `requests_per_second` (spacing) and `max_concurrency` (requests in flight).
    - Batch helpers (`verify_leads`, `search_many`, `validate_many`, `format_many`) return one BatchItem per
      input, in input order, each with its result or its error; an input that got an answer is never re-sent.
    - The sync clients run their work on one background thread's event loop (never patching asyncio), so they
      work inside a running Jupyter loop; an async client belongs to the loop where it is first used.

Errors: one tree, `dqkit.contract.errors` (TransportError, TransportTimeout, ProtocolError and the ServiceError
family by HTTP status: BadRequestError 400, AuthenticationError 401, PermissionDeniedError 403, NotFoundError 404,
RequestTimeoutError 408, PayloadTooLargeError 413, RateLimitError 429, ServerError 5xx). Lead E-codes are answers
(ELSGenericMessage), not exceptions.
"""

from __future__ import annotations

from dqkit.client._policy import ENV_VARS, ClientSettings
from dqkit.client._secret import Secret
from dqkit.client.address import AddressClient, AsyncAddressClient
from dqkit.client.lead import AsyncLeadClient, LeadClient

__all__ = ["ENV_VARS", "AddressClient", "AsyncAddressClient", "AsyncLeadClient", "ClientSettings", "LeadClient",
           "Secret"]
