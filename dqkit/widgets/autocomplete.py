"""AddressAutocomplete: type an address in a notebook, pick a suggestion, get the formatted 7-line address.

The browser half is `widgets/autocomplete.js` (plain ES module, no build step). It sends each debounced keystroke
to this object over the widget's comm. An in-process backend is answered inline (a few ms); a remote one goes
through `RequestQueue`, a worker thread, so the kernel's message loop never waits on the network; its answers are
sent, and `.value` set, back on the kernel's event loop, where observers expect to run.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Sequence
from typing import Any

import anywidget
import msgspec
import traitlets

from dqkit._resources import bundled
from dqkit.backends.base import AddressBackend
from dqkit.backends.select import BackendLike, address_backend, is_remote
from dqkit.contract.address import (
    MAX_SUGGESTIONS,
    Address,
    FormatResult,
    SearchRequest,
    SearchType,
)
from dqkit.contract.errors import InputError
from dqkit.widgets.channel import (
    PROTOCOL,
    WITH_COMPONENTS,
    Answer,
    Request,
    RequestHandler,
    RequestQueue,
    decode,
    flat_components,
    normalize_country,
    reference_notice,
)

ADDRESS_LINES: tuple[str, ...] = tuple(Address.__struct_fields__)


def _is_local(backend: AddressBackend) -> bool:
    try:
        from dqkit.backends.local import LocalBackend
    except ImportError:
        return False
    return isinstance(backend, LocalBackend)


class AddressAutocomplete(anywidget.AnyWidget):
    """An address box with suggestions as you type, over any AddressBackend (default: the local engine on the
    bundled demo reference).

    `.value` holds the chosen address as a dict of the 7 lines (address_line_1, address_line_2, address_line_3,
    locality, region, postal_code, country), or `{}` before a choice; observe it with
    `w.observe(callback, "value")`. `.address_key` is the chosen global_address_key, `.address` the same value
    as an `Address`.

    backend          what every dqkit surface accepts: None or "local" (the in-process engine on the demo
                     reference, shared per process), "vendor", the URL of a `dqkit serve`, a BackendSpec, or
                     any AddressBackend object; `token` goes to the HTTP clients
    country          ISO code searched ("USA"; two-letter codes are accepted); `countries` adds a picker
    max_suggestions  suggestions per keystroke (1..25, default 7)
    components       ask for the component breakdown of the chosen address (street name, building number,
                     ...) and show it under the 7 lines when the backend gives one (default True);
                     `.components` holds it as a flat dict
    notice           a banner over the box: set by the widget when the backend answers from a synthetic demo
                     reference (its datasets answer says so), "" otherwise
    reference        a line over the box naming the installed reference that answers (id, source, dates), set
                     by the widget for the local engine; "" when it cannot say (a remote backend)
    threaded         answer on a worker thread (default: for remote backends; in-process ones answer inline)
    warm_up          open the local engine's reference in the background now (default: for the local engine)
    """

    _esm = bundled("widgets", "autocomplete.js")
    _css = bundled("widgets", "autocomplete.css")

    value = traitlets.Dict(help="the chosen 7-line address, {} when none").tag(sync=True)
    address_key = traitlets.Unicode("", help="global_address_key of the chosen address").tag(sync=True)
    country = traitlets.Unicode("USA", help="ISO alpha-3 country searched").tag(sync=True)
    countries = traitlets.List(traitlets.Unicode(), help="countries offered in the picker").tag(sync=True)
    placeholder = traitlets.Unicode("Start typing an address…").tag(sync=True)
    debounce_ms = traitlets.Int(80, help="keystrokes closer than this are coalesced").tag(sync=True)
    timeout_ms = traitlets.Int(20000, help="the browser gives up on an answer after this").tag(sync=True)
    max_suggestions = traitlets.Int(7, help="suggestions per search, 1..25")
    components = traitlets.Dict(help="component breakdown of the chosen address, {} when none").tag(sync=True)
    show_components = traitlets.Bool(True, help="ask for and show the component breakdown").tag(sync=True)
    notice = traitlets.Unicode("", help="banner shown over the box (demo reference warning)").tag(sync=True)
    reference = traitlets.Unicode("", help="which installed reference answers, and how old (a line over the box)"
                                  ).tag(sync=True)

    def __init__(
        self,
        backend: BackendLike = None,
        country: str = "USA",
        *,
        token: str | None = None,
        countries: Sequence[str] | None = None,
        max_suggestions: int = 7,
        components: bool = True,
        threaded: bool | None = None,
        warm_up: bool | None = None,
        **kwargs: Any,
    ) -> None:
        resolved = address_backend(backend, token=token)  # InputError for anything that cannot serve
        country = normalize_country(country)
        chosen = [normalize_country(c) for c in countries] if countries else [country]
        if country not in chosen:
            chosen.insert(0, country)
        super().__init__(country=country, countries=chosen, max_suggestions=max_suggestions,
                         show_components=components, **kwargs)
        self._backend = resolved
        self._handler = RequestHandler(lambda: self._backend, lambda: self.max_suggestions,
                                       lambda: self.show_components)
        self._queue = RequestQueue(self._handler.answer, self._deliver)
        self._loop: asyncio.AbstractEventLoop | None = None
        # An in-process backend answers in a few milliseconds: answering inline saves two thread hops per
        # keystroke. A remote one (HTTP) runs on the worker so a slow answer never blocks the kernel.
        self._threaded = is_remote(resolved) if threaded is None else threaded
        self.on_msg(self._on_custom)
        if warm_up is None:
            warm_up = _is_local(resolved)
        try:
            self._init_loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self._init_loop = None
        # Off the main thread: open the local reference now, so the first keystroke is not the slow one, and ask
        # the backend which reference answers, so a synthetic demo reference is announced by a banner.
        threading.Thread(target=self._warm_up, args=(warm_up,), name="dqkit-autocomplete-warm-up",
                         daemon=True).start()

    # ---- validation

    @traitlets.validate("country")
    def _check_country(self, proposal: dict[str, Any]) -> str:
        try:
            return normalize_country(proposal["value"])
        except InputError as e:
            raise traitlets.TraitError(str(e)) from e

    @traitlets.validate("max_suggestions")
    def _check_max(self, proposal: dict[str, Any]) -> int:
        n = int(proposal["value"])
        top = MAX_SUGGESTIONS[SearchType.AUTOCOMPLETE]
        if not 1 <= n <= top:
            raise traitlets.TraitError(f"max_suggestions must be between 1 and {top}, not {n}")
        return n

    @traitlets.validate("value")
    def _check_value(self, proposal: dict[str, Any]) -> dict[str, str]:
        v = proposal["value"]
        if not v:
            return {}
        unknown = set(v) - set(ADDRESS_LINES)
        if unknown:
            raise traitlets.TraitError(f"value has unknown address lines {sorted(unknown)}; "
                                       f"expected {list(ADDRESS_LINES)}")
        return {k: str(v.get(k) or "") for k in ADDRESS_LINES}

    # ---- public API

    @property
    def backend(self) -> AddressBackend:
        return self._backend

    @property
    def address(self) -> Address | None:
        """The chosen address as an `Address`, or None before a choice."""
        return msgspec.convert(self.value, Address) if self.value else None

    def select(self, key: str) -> Address:
        """Format `key` (a global_address_key from the backend) and make it the widget's value, as picking it
        in the browser would. Errors from the backend are raised, not shown."""
        fmt = (self.backend.format(key, add=WITH_COMPONENTS) if self.show_components
               else self.backend.format(key)).result
        self._apply(fmt)
        return fmt.address

    def ask(self, op: str, **params: Any) -> dict[str, Any]:
        """Answer one request as the browser's would be answered (`op`: search, refine, step_in or format), and
        return the message the browser gets: `{"ok": True, "result": ...}` or `{"ok": False, "error":
        {"type", "message"}}` with the message the widget shows. A format answer also sets `.value`."""
        request = Request(PROTOCOL, "request", 0, op, params)
        answer = self._handler.answer(request)
        self._settle(request, answer)
        return answer.message

    def clear(self) -> None:
        self.value = {}
        self.address_key = ""
        self.components = {}

    def check_reference(self) -> str:
        """Ask the backend which reference answers and set `.notice` (the banner) and `.reference` from it;
        returns the notice."""
        self.notice = reference_notice(self.backend, self.country)
        self.reference = reference_line(self.backend, self.country)
        return self.notice

    def close(self) -> None:
        queue = getattr(self, "_queue", None)  # absent when __init__ refused its arguments
        if queue is not None:
            queue.close()
        super().close()

    # ---- the channel

    def _on_custom(self, _widget: object, content: object, _buffers: object) -> None:
        request = decode(content)
        if request is None:
            return
        try:
            self._loop = asyncio.get_running_loop() if self._threaded else None
        except RuntimeError:
            self._loop = None
        if self._loop is None:
            # Inline: a fast local backend, or no event loop to come back to (a plain Python session).
            self._finish(request, self._handler.answer(request))
            return
        self._queue.submit(request)

    def _deliver(self, request: Request, answer: Answer) -> None:
        """Called on the worker thread: hand the answer to the kernel's loop (observers run there)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            self._finish(request, answer)
            return
        loop.call_soon_threadsafe(self._finish, request, answer)

    def _finish(self, request: Request, answer: Answer) -> None:
        self._settle(request, answer)
        if self.comm is not None:
            self.send(answer.message)

    def _settle(self, request: Request, answer: Answer) -> None:
        """A format answer becomes the value; a search for other text than the chosen address's withdraws it (the
        box no longer names it: an old address must not stay under new suggestions or "No matches")."""
        if answer.chosen is not None:
            self._apply(answer.chosen)
        elif request.op == "search" and self.value and answer.message.get("ok"):
            text = " ".join(str(request.params.get("text", "")).split())
            if text != single_line(self.value):
                self.clear()

    def _apply(self, fmt: FormatResult) -> None:
        with self.hold_trait_notifications():
            self.address_key = fmt.global_address_key
            self.value = msgspec.to_builtins(fmt.address)
            self.components = flat_components(fmt.components) if self.show_components else {}

    def _warm_up(self, search: bool) -> None:
        # Failures are not reported here: the first real keystroke reports any problem to the user.
        # The banner first: it may tell the user that no reference is installed, before any search warns of it.
        notice = reference_notice(self.backend, self.country)
        named = reference_line(self.backend, self.country)
        if search:
            with contextlib.suppress(Exception):
                self.backend.search(SearchRequest.of("1", self.country, max_suggestions=1))
        for trait, text in (("notice", notice), ("reference", named)):
            if text:
                self._set_on_loop(trait, text)

    def _set_on_loop(self, trait: str, value: str) -> None:
        loop = self._init_loop
        if loop is not None and not loop.is_closed():
            # Traits are set on the kernel's loop, where the widget's messages are sent from.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(setattr, self, trait, value)
                return
        setattr(self, trait, value)


def single_line(value: dict[str, str]) -> str:
    """The chosen address as the box shows it (`singleLine` in autocomplete.js): "10 Main St, Apt 2, Springfield IL
    62701, UNITED STATES OF AMERICA"."""
    v = {k: str(value.get(k) or "").strip() for k in ADDRESS_LINES}
    last = " ".join(p for p in (v["locality"], " ".join(p for p in (v["region"], v["postal_code"]) if p)) if p)
    return ", ".join(p for p in (v["address_line_1"], v["address_line_2"], v["address_line_3"], last, v["country"])
                     if p)


def reference_line(backend: AddressBackend, country: str) -> str:
    """ "Reference: openaddresses-us-ca (openaddresses, US/CA, source date ..., built ...)" for a local backend on
    a real reference; "" for the synthetic demo and the open-data-only engine (their banner says more) and for a
    backend that cannot say (a remote one names its data in its own answers)."""
    pick = getattr(backend, "reference_for", None)
    if not callable(pick):
        return ""
    try:
        info = pick(country)
    except Exception:  # the banner is information, never a failure
        return ""
    if getattr(info, "synthetic", False) or not getattr(info, "street_checked", True):
        return ""
    line = getattr(info, "line", None)
    return str(line()) if callable(line) else ""
