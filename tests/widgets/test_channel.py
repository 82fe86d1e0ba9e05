"""The kernel side of the autocomplete channel: decoding, answering, errors, and the worker queue."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from widget_fakes import FakeBackend

from dqkit.contract.errors import InputError, NotFoundError
from dqkit.widgets.channel import (
    PROTOCOL,
    Answer,
    Request,
    RequestHandler,
    RequestQueue,
    decode,
    normalize_country,
)


def req(op: str, id_: int = 1, **params: Any) -> Request:
    r = decode({"proto": PROTOCOL, "kind": "request", "id": id_, "op": op, "params": params})
    assert r is not None
    return r


def handler(backend: FakeBackend | None = None, limit: int = 7) -> tuple[RequestHandler, FakeBackend]:
    b = backend or FakeBackend()
    return RequestHandler(lambda: b, lambda: limit), b


class TestDecode:
    def test_our_requests_decode(self) -> None:
        r = decode({"proto": PROTOCOL, "kind": "request", "id": 7, "op": "search", "params": {"text": "1"}})
        assert r == Request(PROTOCOL, "request", 7, "search", {"text": "1"})

    def test_string_ids_are_answered_as_given(self) -> None:
        r = decode({"proto": PROTOCOL, "kind": "request", "id": "k3f9-12", "op": "step_in", "params": {"key": "x"}})
        assert r is not None
        h, _ = handler()
        assert h.answer(r).message["id"] == "k3f9-12"

    @pytest.mark.parametrize("content", [
        None, "search", [1, 2], {}, {"method": "update"},
        {"proto": "other", "kind": "request", "id": 1, "op": "search"},
        {"proto": PROTOCOL, "kind": "response", "id": 1, "op": "search"},
        {"proto": PROTOCOL, "kind": "request", "op": "search"},  # no id: nothing to answer
        {"proto": PROTOCOL, "kind": "request", "id": 1.5, "op": "search"},
        {"proto": PROTOCOL, "kind": "request", "id": None, "op": "search"},
        {"proto": PROTOCOL, "kind": "request", "id": 1, "op": "search", "params": [1]},
    ])
    def test_other_traffic_and_garbage_is_ignored(self, content: object) -> None:
        assert decode(content) is None


class TestCountry:
    @pytest.mark.parametrize(("given", "expected"), [("USA", "USA"), ("usa", "USA"), (" US ", "USA"),
                                                     ("ca", "CAN"), ("GBR", "GBR"), ("deu", "DEU")])
    def test_normalized(self, given: str, expected: str) -> None:
        assert normalize_country(given) == expected

    @pytest.mark.parametrize("bad", ["", "U", "USAA", "U S", "12A", "ÜSA"])
    def test_rejected_with_a_clear_message(self, bad: str) -> None:
        with pytest.raises(InputError, match="three-letter ISO code"):
            normalize_country(bad)


class TestAnswers:
    def test_search_answers_the_suggestion_list_with_ranges(self) -> None:
        h, b = handler()
        a = h.answer(req("search", 3, text=" 10 Oak ", country="us"))
        msg = a.message
        assert (msg["proto"], msg["kind"], msg["id"], msg["ok"]) == (PROTOCOL, "response", 3, True)
        first = msg["result"]["suggestions"][0]
        assert first["global_address_key"] == "F-10-OAK"
        assert [list(r) for r in first["matched"]] == [[0, 6]]
        assert first["format"]
        assert a.chosen is None
        assert b.calls == [("search", "10 Oak")]

    def test_search_uses_the_widget_limit_clamped_to_25(self) -> None:
        seen: list[int | None] = []

        class Spy(FakeBackend):
            def search(self, request: Any) -> Any:
                seen.append(request.max_suggestions)
                return super().search(request)

        for limit, expected in [(2, 2), (99, 25), (0, 1)]:
            h, _ = handler(Spy(), limit)
            h.answer(req("search", text="1"))
            assert seen[-1] == expected

    def test_a_two_letter_country_reaches_the_backend_as_three_letters(self) -> None:
        countries: list[str] = []

        class Spy(FakeBackend):
            def search(self, request: Any) -> Any:
                countries.append(request.country_iso)
                return super().search(request)

        h, _ = handler(Spy())
        h.answer(req("search", text="1", country="gb"))
        h.answer(req("search", text="1"))
        assert countries == ["GBR", "USA"]

    def test_refine_step_in_and_format(self) -> None:
        h, b = handler()
        r = h.answer(req("refine", key="G-ARCH", refinement=" 24 ")).message
        assert [s["global_address_key"] for s in r["result"]["suggestions"]] == ["F-24-ARCH"]
        s = h.answer(req("step_in", key="G-5-MAIN")).message
        assert s["result"]["suggestions_prompt"] == "Enter the apartment"
        assert len(s["result"]["suggestions"]) == 3
        f = h.answer(req("format", key="F-5-MAIN-2"))
        assert f.message["result"]["address"]["address_line_2"] == "Apt 2"
        assert f.chosen is not None and f.chosen.global_address_key == "F-5-MAIN-2"
        assert b.calls == [("refine", "G-ARCH|24"), ("step_in", "G-5-MAIN"), ("format", "F-5-MAIN-2")]

    def test_empty_refinement_is_allowed(self) -> None:
        h, _ = handler()
        assert h.answer(req("refine", key="G-5-MAIN", refinement="")).message["ok"] is True

    @pytest.mark.parametrize(("op", "params", "pattern"), [
        ("search", {"text": "   "}, "text is empty"),
        ("search", {}, "text is empty"),
        ("search", {"text": 5}, "text must be text"),
        ("search", {"text": "x" * 301}, "longer than 300"),
        ("search", {"text": "1", "country": "U S A"}, "three-letter ISO code"),
        ("refine", {"refinement": "2"}, "key is empty"),
        ("refine", {"key": "G-ARCH", "refinement": ["2"]}, "refinement must be text"),
        ("format", {"key": None}, "key must be text"),
        ("delete", {"key": "x"}, "unknown request 'delete'"),
    ])
    def test_bad_requests_get_an_input_error_answer(self, op: str, params: dict[str, Any], pattern: str) -> None:
        h, b = handler()
        msg = h.answer(req(op, 9, **params)).message
        assert (msg["id"], msg["ok"], msg["error"]["type"]) == (9, False, "InputError")
        assert pattern in msg["error"]["message"]
        assert b.calls == []

    def test_backend_errors_are_answered_with_their_class_and_text(self) -> None:
        h, _ = handler()
        msg = h.answer(req("format", key="nope")).message
        assert msg["ok"] is False
        assert msg["error"]["type"] == "NotFoundError"
        assert "unknown address key 'nope'" in msg["error"]["message"]

    def test_unexpected_errors_are_answered_too(self) -> None:
        h, _ = handler(FakeBackend(fail_with=ZeroDivisionError("boom")))
        msg = h.answer(req("search", text="1")).message
        assert msg["error"] == {"type": "InternalError", "message": "ZeroDivisionError: boom"}

    def test_a_backend_that_cannot_be_built_is_an_error_answer(self) -> None:
        def broken() -> FakeBackend:
            raise NotFoundError("reference index missing")

        msg = RequestHandler(broken).answer(req("search", text="1")).message
        assert msg["error"]["type"] == "NotFoundError"


class Collector:
    """deliver() target: records answers and lets a test wait for a number of them."""

    def __init__(self) -> None:
        self.answers: list[tuple[Request, Answer]] = []
        self.cv = threading.Condition()

    def __call__(self, request: Request, answer: Answer) -> None:
        with self.cv:
            self.answers.append((request, answer))
            self.cv.notify_all()

    def wait(self, n: int, timeout: float = 5.0) -> list[tuple[Request, Answer]]:
        with self.cv:
            assert self.cv.wait_for(lambda: len(self.answers) >= n, timeout), self.answers
            return list(self.answers)

    def by_id(self) -> dict[int, dict[str, Any]]:
        return {r.id: a.message for r, a in self.answers}


class TestQueue:
    def test_runs_on_a_worker_thread(self) -> None:
        h, b = handler()
        got = Collector()
        q = RequestQueue(h.answer, got)
        q.submit(req("search", 1, text="10"))
        got.wait(1)
        assert b.threads == {"dqkit-autocomplete"}
        q.close()

    def test_a_newer_list_request_supersedes_waiting_ones_but_format_always_runs(self) -> None:
        gate = threading.Event()
        h, b = handler(FakeBackend(gate=gate))
        got = Collector()
        q = RequestQueue(h.answer, got)
        q.submit(req("search", 1, text="1"))  # taken by the worker, blocked on the gate
        deadline = time.monotonic() + 5
        while not b.calls and time.monotonic() < deadline:
            time.sleep(0.005)
        q.submit(req("search", 2, text="10"))
        q.submit(req("format", 3, key="F-7-ELM"))
        q.submit(req("search", 4, text="10 "))  # supersedes 2
        q.submit(req("refine", 5, key="G-ARCH", refinement="2"))  # supersedes 4
        assert q.pending == 2
        assert got.by_id()[2]["error"]["type"] == "Superseded"
        assert got.by_id()[4]["error"]["type"] == "Superseded"
        gate.set()
        got.wait(5)
        answers = got.by_id()
        assert answers[1]["ok"] and answers[3]["ok"] and answers[5]["ok"]
        assert [c[0] for c in b.calls] == ["search", "format", "refine"]
        q.close()

    def test_close_answers_what_is_still_waiting(self) -> None:
        gate = threading.Event()
        h, b = handler(FakeBackend(gate=gate))
        got = Collector()
        q = RequestQueue(h.answer, got)
        q.submit(req("search", 1, text="1"))
        while not b.calls:
            time.sleep(0.005)
        q.submit(req("format", 2, key="F-7-ELM"))
        closer = threading.Thread(target=q.close)
        closer.start()
        got.wait(1)
        assert got.by_id()[2]["error"]["type"] == "Closed"
        gate.set()
        closer.join(5)
        q.submit(req("search", 3, text="1"))  # after close: answered, not run
        assert got.by_id()[3]["error"]["type"] == "Closed"
        assert len(b.calls) == 1
