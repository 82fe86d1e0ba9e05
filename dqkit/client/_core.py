"""The async engine of both clients: send with retries, pacing and error mapping; run batches in input order.

A request keeps one `Reference-Id` across its retries (so the server's logs tie the tries together) and a batch
item carries it. Once a request has an answer it is never sent again; a batch runs each input exactly once
through `call`, whose retries only repeat sends that got no usable answer.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Final, TypeVar

import msgspec

from dqkit._version import __version__
from dqkit.backends.base import BatchItem
from dqkit.client._limits import Limits, Sleep
from dqkit.client._policy import RETRY_STATUSES, ClientSettings, backoff_delay, rate_limit_wait, reset_epoch
from dqkit.client._transport import AsyncTransport, RawResponse
from dqkit.contract.errors import (
    DqkitError,
    ErrorBody,
    ErrorDetail,
    InputError,
    NotSentError,
    ProtocolError,
    RateLimitError,
    ServiceError,
    TransportError,
    TransportTimeout,
    error_class_for_status,
)

log = logging.getLogger("dqkit.client")
T = TypeVar("T")
I = TypeVar("I")  # noqa: E741
USER_AGENT: Final = f"dqkit/{__version__}"
_error_decoder = msgspec.json.Decoder(ErrorBody)


def new_reference_id() -> str:
    return str(uuid.uuid4())


def error_from_response(resp: RawResponse, method: str, path: str, reference_id: str) -> ServiceError:
    """The ServiceError of an error answer, carrying the vendor's body when it has one."""
    try:
        detail = _error_decoder.decode(resp.body).error
    except (msgspec.DecodeError, msgspec.ValidationError):
        text = resp.body[:300].decode("utf-8", "replace").strip()
        detail = ErrorDetail(type=f"https://httpstatuses.io/{resp.status}", detail=text, instance=path)
    cls = error_class_for_status(resp.status)
    if cls is RateLimitError:
        return RateLimitError(detail.detail, status=resp.status, error=detail, reference_id=reference_id,
                              retry_after=rate_limit_wait(resp.headers), reset_at=reset_epoch(resp.headers))
    return cls(detail.detail or f"{method} {path}", status=resp.status, error=detail, reference_id=reference_id)


class Drain:
    """The brake of a client's batches, for Ctrl-C: once `stop()` is called no request is sent for the first time
    and none is retried; the requests in flight finish, so their answers (which the service may bill) are kept.

    `in_flight` counts the inputs whose request is out; `answered` the inputs answered since `reset()`. They are
    written on the client's loop thread only and read from anywhere (the pipeline reads them to say how many
    answers an abort would lose)."""

    def __init__(self) -> None:
        self.stopping = False
        self.in_flight = 0
        self.answered = 0

    def stop(self) -> None:
        self.stopping = True

    def reset(self) -> None:
        self.stopping = False
        self.answered = 0


NOT_SENT: Final = "not sent: the run was stopped (Ctrl-C) before this request went out; a rerun sends it"


class AsyncCore:
    """Sends requests for one service. Bound to the event loop of its first request."""

    def __init__(self, settings: ClientSettings) -> None:
        self.settings = settings
        self._transport = AsyncTransport(settings.base_url, max_connections=settings.max_concurrency,
                                         transport=settings.transport)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._limits: Limits | None = None
        self._sleep: Sleep = asyncio.sleep  # tests swap it to record waits
        self._rng = random.Random()
        # The token stays a Secret here: the transport's auth flow sets the header on the outgoing request, so no
        # dict, local variable or frame of dqkit ever holds the plain text (tracebacks with locals cannot show it).
        self._token: Final = settings.token or None
        self._base_headers: Final = {"user-agent": USER_AGENT, **{k.lower(): v for k, v in settings.headers.items()}}
        self.drain = Drain()

    def __repr__(self) -> str:
        return f"AsyncCore({self.settings.base_url!r}, transport={self.settings.transport!r})"

    def _bind(self) -> Limits:
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
            self._limits = Limits(self.settings.max_concurrency, self.settings.requests_per_second,
                                  lambda s: self._sleep(s))
        elif self._loop is not loop:
            raise InputError("this async client belongs to another event loop; create one client per loop "
                             "(or use the sync client, which runs on dqkit's own loop)")
        assert self._limits is not None
        return self._limits

    async def call(self, method: str, path: str, *, content: bytes | None = None, content_type: str | None = None,
                   accept: str = "application/json", reference_id: str | None = None,
                   headers: Mapping[str, str] | None = None) -> tuple[RawResponse, str]:
        """Send until an answer that is not retried arrives; return it with the Reference-Id used.

        Raises TransportError when the last try got no answer (within `max_attempts` tries and `deadline`
        seconds). An error *answer* is returned (the caller decides what it means) except 429s that could not be
        waited out, which raise RateLimitError. A token the service echoes back is masked in the answer's body
        and headers before anything reads them.
        """
        limits = self._bind()
        ref = reference_id or new_reference_id()
        send_headers = {**self._base_headers, "accept": accept, "reference-id": ref, **(headers or {})}
        if content_type:
            send_headers["content-type"] = content_type
        s = self.settings
        loop = asyncio.get_running_loop()
        ends = None if s.deadline is None else loop.time() + s.deadline
        attempt = 0
        rate_waits = 0
        error: DqkitError | None = None
        while True:
            attempt += 1
            if self.drain.stopping:
                if error is None and attempt == 1:
                    raise NotSentError(NOT_SENT)
                raise self._final(error, attempt - 1, ref, "the run was stopped before a retry")
            await limits.gate.wait()
            if limits.rate is not None:
                await limits.rate.acquire()
            left = s.timeout if ends is None else min(s.timeout, ends - loop.time())
            if left <= 0:
                raise self._final(error, attempt - 1, ref, f"no answer within {s.deadline:g} s in all")
            error = None
            resp: RawResponse | None = None
            async with limits.concurrency:
                try:
                    resp = await self._transport.request(method, path, headers=send_headers, content=content,
                                                         timeout=left, token=self._token,
                                                         max_bytes=s.max_answer_bytes)
                except TransportError as exc:
                    error = exc
            if resp is not None and self._token is not None:
                resp = RawResponse(resp.status, {k: self._token.mask(v) for k, v in resp.headers.items()},
                                   self._token.mask_bytes(resp.body))
            if resp is not None and resp.status == 429:
                wait = rate_limit_wait(resp.headers)
                if wait is None:
                    wait = backoff_delay(rate_waits + 1, s.backoff_base, s.backoff_max, self._rng)
                if rate_waits >= s.max_rate_waits or wait > s.max_rate_wait:
                    raise error_from_response(resp, method, path, ref)
                rate_waits += 1
                attempt -= 1  # a 429 is the server pacing us, not a failed try
                wait += self._rng.uniform(0, 0.05 + wait * 0.1)  # spread the herd at the reset
                if ends is not None:
                    ends += wait  # the server's pacing is not the answer's slowness
                log.info("%s %s: 429, waiting %.2f s (Reference-Id %s)", method, path, wait, ref)
                limits.gate.pause(wait)
                continue
            if resp is not None and resp.status not in RETRY_STATUSES:
                return resp, ref
            delay = backoff_delay(attempt, s.backoff_base, s.backoff_max, self._rng)
            out_of_time = ends is not None and loop.time() + delay >= ends
            if attempt >= s.max_attempts or out_of_time:
                if resp is not None:
                    return resp, ref
                assert error is not None
                raise self._final(error, attempt, ref, f"no answer within {s.deadline:g} s in all"
                                  if out_of_time else "")
            why = f"HTTP {resp.status}" if resp is not None else str(error)
            log.info("%s %s: %s, retry %d in %.2f s (Reference-Id %s)", method, path, why, attempt, delay, ref)
            await self._sleep(delay)

    @staticmethod
    def _final(error: DqkitError | None, tries: int, ref: str, why: str) -> DqkitError:
        """The error a request ends with after `tries` sends: the last one's, saying how many and why it stopped."""
        extra = f"; {why}" if why else ""
        if error is None:
            return TransportTimeout(f"{why} (after {tries} tries; Reference-Id {ref})")
        cls = type(error) if isinstance(error, (TransportError, ProtocolError)) else TransportError
        return cls(f"{error} (after {tries} tries{extra}; Reference-Id {ref})")

    async def batch(self, inputs: Sequence[I], one: Callable[[I, str], Awaitable[T]],
                    on_item: Callable[[BatchItem[T]], None] | None = None,
                    concurrency: int | None = None) -> list[BatchItem[T]]:
        """Run `one(input, reference_id)` for every input, at most `concurrency` at a time; results in input order.

        Every input gets exactly one BatchItem: its result, or the DqkitError it ended with.
        """
        self._bind()
        n = len(inputs)
        results: list[BatchItem[T] | None] = [None] * n
        next_index = 0
        workers = max(1, min(concurrency or self.settings.max_concurrency, n))

        drain = self.drain

        async def worker() -> None:
            nonlocal next_index
            while next_index < n:
                i = next_index
                next_index += 1
                ref = new_reference_id()
                item: BatchItem[T]
                if drain.stopping:  # Ctrl-C: what has not started is not sent (and not billed)
                    item = BatchItem(i, error=NotSentError(NOT_SENT))
                else:
                    drain.in_flight += 1
                    try:
                        item = BatchItem(i, result=await one(inputs[i], ref), reference_id=ref)
                        drain.answered += 1
                    except NotSentError as exc:
                        item = BatchItem(i, error=exc)
                    except DqkitError as exc:
                        item = BatchItem(i, error=exc, reference_id=ref)
                    finally:
                        drain.in_flight -= 1
                results[i] = item
                if on_item is not None:
                    on_item(item)

        started = time.perf_counter()
        async with asyncio.TaskGroup() as tg:
            for _ in range(workers):
                tg.create_task(worker())
        log.debug("batch of %d in %.2f s", n, time.perf_counter() - started)
        missing = [i for i, r in enumerate(results) if r is None]
        if missing:  # cannot happen unless a worker was cancelled; never hand back a short list silently
            raise DqkitError(f"batch lost {len(missing)} items (first index {missing[0]})")
        return [r for r in results if r is not None]

    async def aclose(self) -> None:
        await self._transport.aclose()
