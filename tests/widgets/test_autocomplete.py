"""AddressAutocomplete on the Python side: traits, validation, the message handler, and the thread hop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
import traitlets
from widget_fakes import FakeBackend

from dqkit.contract.address import Address
from dqkit.contract.errors import InputError, NotFoundError
from dqkit.widgets import AddressAutocomplete
from dqkit.widgets.channel import PROTOCOL


def make(backend: FakeBackend | None = None, **kw: Any) -> tuple[AddressAutocomplete, list[dict[str, Any]]]:
    w = AddressAutocomplete(backend or FakeBackend(), **kw)
    sent: list[dict[str, Any]] = []
    w.send = lambda content, buffers=None: sent.append(content)
    return w, sent


def request(op: str, id_: int, **params: Any) -> dict[str, Any]:
    return {"proto": PROTOCOL, "kind": "request", "id": id_, "op": op, "params": params}


def test_assets_come_from_the_bundled_widget_files() -> None:
    w, _ = make()
    assert "export default { render }" in w._esm
    assert f'PROTOCOL = "{PROTOCOL}"' in w._esm, "the two halves must speak the same protocol"
    assert ".dqkit-ac" in w._css


def test_defaults_and_country_choices() -> None:
    w, _ = make()
    assert (w.country, w.countries, w.value, w.address_key, w.address) == ("USA", ["USA"], {}, "", None)
    w2, _ = make(country="ca", countries=["us", "GBR"])
    assert w2.country == "CAN"
    assert w2.countries == ["CAN", "USA", "GBR"]
    w2.country = "gb"
    assert w2.country == "GBR"


def test_bad_arguments_are_refused_clearly() -> None:
    with pytest.raises(InputError, match="three-letter ISO code"):
        AddressAutocomplete(FakeBackend(), country="United States")
    with pytest.raises(InputError, match="cannot answer address questions"):
        AddressAutocomplete(object())  # type: ignore[arg-type]
    with pytest.raises(InputError, match="unknown backend"):
        AddressAutocomplete("carrier-pigeon")
    w, _ = make()
    with pytest.raises(traitlets.TraitError, match="three-letter"):
        w.country = "XX1"
    with pytest.raises(traitlets.TraitError, match="between 1 and 25"):
        w.max_suggestions = 0
    with pytest.raises(traitlets.TraitError, match="unknown address lines"):
        w.value = {"street": "1 Main St"}


def test_value_is_always_the_seven_lines() -> None:
    w, _ = make()
    w.value = {"address_line_1": "1 Main St", "postal_code": 12345}
    assert list(w.value) == list(Address.__struct_fields__)
    assert w.value["postal_code"] == "12345"
    assert w.address == Address(address_line_1="1 Main St", postal_code="12345")
    w.clear()
    assert (w.value, w.address_key) == ({}, "")


def test_select_formats_sets_value_and_notifies_observers_once() -> None:
    w, _ = make()
    changes: list[Any] = []
    w.observe(lambda ch: changes.append(ch["new"]), "value")
    address = w.select("F-5-MAIN-3")
    assert address.address_line_2 == "Apt 3"
    assert w.value["address_line_2"] == "Apt 3"
    assert w.address_key == "F-5-MAIN-3"
    assert changes == [w.value]
    with pytest.raises(NotFoundError):
        w.select("missing")


def test_messages_are_answered_inline_without_an_event_loop() -> None:
    w, sent = make()
    w._on_custom(w, request("search", 1, text="12 Oak", country="USA"), [])
    w._on_custom(w, {"method": "something else"}, [])
    w._on_custom(w, request("format", 2, key="F-12-OAK"), [])
    assert [m["id"] for m in sent] == [1, 2]
    assert sent[0]["result"]["suggestions"][0]["global_address_key"] == "F-12-OAK"
    assert w.value["address_line_1"] == "12 Oak St"


def test_errors_reach_the_browser_and_leave_value_alone() -> None:
    w, sent = make()
    w._on_custom(w, request("format", 1, key="nope"), [])
    w._on_custom(w, request("search", 2, text=""), [])
    assert [(m["ok"], m["error"]["type"]) for m in sent] == [(False, "NotFoundError"), (False, "InputError")]
    assert w.value == {}


def test_max_suggestions_reaches_the_backend() -> None:
    w, sent = make(max_suggestions=1)
    w._on_custom(w, request("search", 1, text="1"), [])
    assert len(sent[0]["result"]["suggestions"]) == 1


def test_in_a_kernel_the_backend_runs_off_the_loop_and_value_is_set_on_it() -> None:
    """With an event loop running (as in ipykernel), the handler only enqueues; the answer is sent and `.value`
    set back on the loop's thread, where observers run."""
    backend = FakeBackend()
    w, sent = make(backend, threaded=True)
    observed: list[str] = []
    w.observe(lambda ch: observed.append(threading.current_thread().name), "value")

    async def drive() -> None:
        w._on_custom(w, request("search", 1, text="7 Elm"), [])
        w._on_custom(w, request("format", 2, key="F-7-ELM"), [])
        assert sent == [], "the handler must not block on the backend"
        for _ in range(500):
            if len(sent) == 2:
                return
            await asyncio.sleep(0.01)

    loop_thread = threading.current_thread().name
    asyncio.run(drive())
    assert [m["id"] for m in sent] == [1, 2]
    assert backend.threads == {"dqkit-autocomplete"}
    assert observed == [loop_thread]
    assert w.value["locality"] == "Dover"
    w.close()


def test_close_stops_the_worker() -> None:
    w, _ = make(threaded=True)

    async def drive() -> None:
        w._on_custom(w, request("search", 1, text="1"), [])
        await asyncio.sleep(0.05)

    asyncio.run(drive())
    thread = w._queue._thread
    assert thread is not None and thread.is_alive()
    w.close()
    assert not thread.is_alive()


def test_in_process_backends_answer_inline_even_with_a_loop() -> None:
    backend = FakeBackend()
    w, sent = make(backend)

    async def drive() -> None:
        w._on_custom(w, request("search", 1, text="7 Elm"), [])
        assert len(sent) == 1, "answered before the handler returned"

    asyncio.run(drive())
    assert backend.threads == {threading.current_thread().name}


def test_remote_backends_are_answered_on_the_worker() -> None:
    class Remote(FakeBackend):
        remote = True

    assert AddressAutocomplete(Remote())._threaded is True
    assert AddressAutocomplete(FakeBackend())._threaded is False
    assert AddressAutocomplete(FakeBackend(), threaded=True)._threaded is True


def test_the_default_is_the_shared_local_backend() -> None:
    from dqkit.backends.local import LocalBackend
    from dqkit.backends.select import address_backend

    w = AddressAutocomplete(warm_up=False)
    assert isinstance(w.backend, LocalBackend)
    assert w.backend is address_backend(None) is AddressAutocomplete("local", warm_up=False).backend
    assert w._threaded is False


def test_a_country_without_a_reference_is_said_in_plain_words() -> None:
    """The local engine's "400 Bad Request: no reference data for country 'CAN'" reads as what to do."""
    # the local engine on the demo (US only); with installed references an uncovered country goes to the
    # open-data engine instead, which answers "No matches" with a prompt naming `dqkit reference add`
    w = AddressAutocomplete("demo", country="USA", countries=["USA", "CAN"])
    sent: list[dict[str, Any]] = []
    w.send = lambda content, buffers=None: sent.append(content)
    w._on_custom(w, request("search", 1, text="10 main", country="CAN"), [])
    assert sent[0]["ok"] is False
    message = sent[0]["error"]["message"]
    assert message == "No address reference for Canada is installed. Add one with: dqkit reference add <file>"
    assert "400" not in message and "Bad Request" not in message


def test_a_synthetic_demo_reference_shows_a_banner() -> None:
    from dqkit.contract.address import Dataset

    w, _ = make()  # FakeBackend's datasets answer says synthetic
    assert "synthetic" in w.check_reference() and "dqkit reference add" in w.notice

    class Real(FakeBackend):
        def datasets(self, country_iso: str | None = None) -> list[Dataset]:
            return [Dataset(id="us-ca-alameda", name="Alameda County, CA (OpenAddresses)", country_iso="USA")]

    class Silent(FakeBackend):
        def datasets(self, country_iso: str | None = None) -> list[Dataset]:
            raise NotFoundError("no datasets operation")

    assert make(Real())[0].check_reference() == ""
    assert make(Silent())[0].check_reference() == ""  # a backend that cannot say: no banner, no failure
    # The vendor's published shape of a datasets answer (a description instead of a flag) is read as well.
    from dqkit.widgets.channel import is_synthetic
    assert is_synthetic({"id": "us-address", "description": "Synthetic demo addresses"})
    assert not is_synthetic({"id": "us-address", "description": "USPS addresses"})
    assert is_synthetic({"id": "us-address", "metadata": {"source": "dqkit synthetic demo"}})


def test_a_search_for_other_text_withdraws_the_value_a_cell_set() -> None:
    """A cell chose an address; the user then types something else: the old address must not stay shown (or held
    in `.value`) under the new suggestions or "No matches". The chosen address's own text keeps it."""
    from dqkit.widgets.autocomplete import single_line

    w, sent = make()
    w.select("F-12-OAK")
    line = single_line(w.value)
    assert line.startswith("12 Oak St, ")
    w._on_custom(w, request("search", 1, text=f" {line} "), [])
    assert w.value["address_line_1"] == "12 Oak St", "the box still names the chosen address"
    w._on_custom(w, request("search", 2, text="zzz no such street"), [])
    assert sent[-1]["ok"] and (w.value, w.address_key, w.components) == ({}, "", {})
    w.select("F-12-OAK")
    assert w.ask("search", text="5 Main")["ok"] and w.value == {}


def test_an_installed_reference_is_named_over_the_box(tmp_path: Any) -> None:
    from dqkit.backends.local import LocalBackend
    from dqkit.engines.address import AddressEngine

    path = tmp_path / "us_ca_alameda.csv"
    path.write_text("LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE,ID,HASH\n"
                    "-122.2637604,37.7727802,1216,SANTA CLARA AV,,ALAMEDA,,CA,94501,,\n", encoding="utf-8")
    engine = AddressEngine.from_files([path])
    w = AddressAutocomplete(LocalBackend(address_engine=engine), warm_up=False)
    assert w.check_reference() == "" and w.reference == engine.reference.line()
    assert w.reference.startswith(f"Reference: {engine.reference.id}")
    demo = AddressAutocomplete("demo", warm_up=False)
    demo.check_reference()
    assert demo.reference == "" and "synthetic" in demo.notice  # the demo's banner says more


def test_the_default_local_engine_announces_its_demo_reference() -> None:
    w = AddressAutocomplete()
    deadline = threading.Event()
    for _ in range(100):  # the warm-up thread sets the banner (no event loop here: directly)
        if w.notice:
            break
        deadline.wait(0.1)
    datasets = w.backend.datasets("USA")
    if any(getattr(d, "synthetic", False) for d in datasets):
        assert "synthetic" in w.notice
    elif [d.id for d in datasets] == ["us-open-data"]:  # no reference installed: say so, and what to do
        assert "No street reference is installed" in w.notice and "dqkit reference add" in w.notice
    else:
        assert w.notice == ""


def test_components_are_shown_when_the_format_answer_has_them() -> None:
    from widget_fakes import ALL

    from dqkit.contract.address import Confidence, FormatRequest, FormatResponse, FormatResult
    from dqkit.contract.address_components import (
        NO_ADD_ONS,
        AddOns,
        AddressComponents,
        BuildingComponent,
        StreetComponent,
    )

    class WithComponents(FakeBackend):
        def format(self, key: str, request: FormatRequest | None = None, add: AddOns = NO_ADD_ONS) -> FormatResponse:
            comps = AddressComponents(building=BuildingComponent(building_number=key.split("-")[1]),
                                      street=StreetComponent(name="Oak", type="St"))
            return FormatResponse(FormatResult(global_address_key=key, confidence=Confidence.VERIFIED_MATCH,
                                               address=ALL[key], components=comps if add.components else None))

    w, _ = make(WithComponents())
    w._on_custom(w, request("format", 1, key="F-12-OAK"), [])
    assert w.components == {"building.building_number": "12", "street.name": "Oak", "street.type": "St"}
    assert w.value["address_line_1"] == "12 Oak St"
    w.clear()
    assert w.components == {}
    # Without components in the answer (the plain fake, or components=False), the 7 lines alone.
    plain, _ = make()
    plain._on_custom(plain, request("format", 1, key="F-12-OAK"), [])
    assert plain.components == {} and plain.value["address_line_1"] == "12 Oak St"
    off, _ = make(WithComponents(), components=False)
    off.select("F-12-OAK")
    assert off.components == {}


def test_ask_answers_as_the_browser_is_answered() -> None:
    w, sent = make()
    answer = w.ask("search", text="12 Oak", country="USA")
    assert answer["ok"] and answer["result"]["suggestions"][0]["global_address_key"] == "F-12-OAK"
    assert w.ask("format", key="F-12-OAK")["ok"] and w.value["address_line_1"] == "12 Oak St"
    assert w.ask("format", key="nope")["error"]["type"] == "NotFoundError"
    assert sent == []  # nothing went to a browser
