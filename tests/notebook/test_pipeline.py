"""The batch pipeline: identical requests sent once, every request answered or its error recorded, answers
cached (and only the ones worth keeping), an interrupted run resumed, HTTP-like backends driven concurrently."""

from __future__ import annotations

import stat
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path

import pytest

from dqkit.backends.base import BatchItem
from dqkit.contract.errors import DqkitError
from dqkit.contract.lead import ELSGenericMessage, LeadRequest
from dqkit.notebook.cache import FILE_NAME, ResultCache
from dqkit.notebook.frames import open_cache
from dqkit.notebook.leads import cacheable
from dqkit.notebook.pipeline import Operation, one_by_one, run_batch
from dqkit.notebook.settings import options
from tests.notebook.conftest import CountingLeadBackend


def lead(last: str, first: str = "Ann") -> LeadRequest:
    return LeadRequest(first_name=first, last_name=last, zip="02134")


def op_for(backend: CountingLeadBackend, *, remote: bool = False) -> Operation[LeadRequest, ELSGenericMessage]:
    return Operation(namespace=f"{backend.name}|lead.verify", result_type=ELSGenericMessage,
                     call=backend.verify_leads, cacheable=cacheable, remote=remote, batched=remote)


def test_identical_requests_are_sent_once_and_answered_in_input_order(counting: CountingLeadBackend) -> None:
    reqs = [lead("Smith"), lead("Jones"), lead("Smith"), lead("Brown"), lead("Jones")]
    out = run_batch(op_for(counting), reqs, chunk_size=2)
    assert [r.last_name for r in counting.asked] == ["Smith", "Jones", "Brown"]
    assert [it.index for it in out.items] == [0, 1, 2, 3, 4]
    names = [it.result.stage1_data.name_parser.last_name for it in out.items  # type: ignore[union-attr]
             if it.result is not None]
    assert names == ["SMITH", "JONES", "SMITH", "BROWN", "JONES"]
    assert out.summary() == {"requests": 5, "unique": 3, "cached": 0, "sent": 3, "answered": 3, "errors": 0}


def test_every_request_gets_an_answer_or_its_error() -> None:
    backend = CountingLeadBackend(fail_on=["Lost"])
    reqs = [lead("A"), lead("Lost"), lead("B")]
    out = run_batch(op_for(backend), reqs)
    assert [it.ok for it in out.items] == [True, False, True]
    assert isinstance(out.items[1].error, DqkitError) and "Lost" in str(out.items[1].error)
    assert out.errors == 1


def test_a_chunk_whose_call_raises_records_the_error_on_each_of_its_requests() -> None:
    def explode(_: Sequence[LeadRequest]) -> list[BatchItem[ELSGenericMessage]]:
        raise RuntimeError("backend crashed")

    op: Operation[LeadRequest, ELSGenericMessage] = Operation("boom", ELSGenericMessage, explode)
    out = run_batch(op, [lead("A"), lead("B"), lead("C")], chunk_size=2)
    assert len(out.items) == 3 and all(not it.ok for it in out.items)
    assert all("RuntimeError: backend crashed" in str(it.error) for it in out.items)


def test_answers_a_backend_leaves_out_are_recorded_not_lost(counting: CountingLeadBackend) -> None:
    def half(reqs: Sequence[LeadRequest]) -> list[BatchItem[ELSGenericMessage]]:
        return counting.verify_leads(reqs)[: len(reqs) // 2]

    op: Operation[LeadRequest, ELSGenericMessage] = Operation("half", ELSGenericMessage, half)
    out = run_batch(op, [lead(str(i)) for i in range(4)])
    assert [it.ok for it in out.items] == [True, True, False, False]
    assert "no answer" in str(out.items[3].error)


def test_one_by_one_records_each_failure_on_its_own_item() -> None:
    def fn(req: LeadRequest) -> ELSGenericMessage:
        if req.last_name == "Bad":
            raise ValueError("bad lead")
        return CountingLeadBackend().verify_lead(req)

    items = one_by_one(fn)([lead("A"), lead("Bad"), lead("C")])
    assert [it.ok for it in items] == [True, False, True]
    assert "ValueError: bad lead" in str(items[1].error)


def test_a_rerun_is_answered_from_the_cache(counting: CountingLeadBackend, private_cache: Path) -> None:
    cache = open_cache(None)
    assert cache is not None
    reqs = [lead(str(i)) for i in range(10)]
    first = run_batch(op_for(counting), reqs, cache=cache, chunk_size=3)
    second = run_batch(op_for(counting), reqs, cache=cache)
    assert len(counting.asked) == 10
    assert second.cached == 10 and second.sent == 0
    assert [it.result for it in second.items] == [it.result for it in first.items]


def test_service_and_account_faults_are_not_cached(private_cache: Path) -> None:
    backend = CountingLeadBackend(answer={"Down": "E400", "Denied": "E501", "Spoof": "E100"}, fail_on=["Lost"])
    cache = open_cache(None)
    reqs = [lead("Down"), lead("Denied"), lead("Spoof"), lead("Fine"), lead("Lost")]
    run_batch(op_for(backend), reqs, cache=cache)
    backend.asked.clear()
    run_batch(op_for(backend), reqs, cache=cache)
    assert sorted(r.last_name for r in backend.asked) == ["Denied", "Down", "Lost"]


def test_the_cache_key_includes_the_backend(private_cache: Path) -> None:
    cache = open_cache(None)
    a, b = CountingLeadBackend(), CountingLeadBackend()
    run_batch(op_for(a), [lead("X")], cache=cache)
    other = Operation("another-backend|lead.verify", ELSGenericMessage, b.verify_leads)
    run_batch(other, [lead("X")], cache=cache)
    assert len(b.asked) == 1


def test_an_interrupted_run_resumes_without_asking_again(private_cache: Path) -> None:
    reqs = [lead(f"L{i}") for i in range(100)]
    cache = open_cache(None)
    crashing = CountingLeadBackend(interrupt_at=45)
    with pytest.raises(KeyboardInterrupt) as info:
        run_batch(op_for(crashing), reqs, cache=cache, chunk_size=10)
    assert "run again to resume" in "".join(getattr(info.value, "__notes__", []))
    finished = {r.last_name for r in crashing.asked[:40]}  # the four chunks that completed
    resumed = CountingLeadBackend()
    out = run_batch(op_for(resumed), reqs, cache=cache, chunk_size=10)
    assert out.cached == 40 and out.sent == 60
    assert finished.isdisjoint(r.last_name for r in resumed.asked)
    assert all(it.ok for it in out.items) and len(out.items) == 100


def test_remote_backends_get_chunks_concurrently() -> None:
    both_in_flight = threading.Barrier(2, timeout=10)

    def meet(_: Sequence[LeadRequest]) -> None:
        both_in_flight.wait()  # passes only when two chunks are being answered at the same time

    backend = CountingLeadBackend(remote=True, batch_hook=meet)
    reqs = [lead(f"L{i}") for i in range(8)]
    out = run_batch(op_for(backend, remote=True), reqs, concurrency=2, chunk_size=2)
    assert all(it.ok for it in out.items) and [it.index for it in out.items] == list(range(8))
    names = [it.result.stage1_data.name_parser.last_name for it in out.items]  # type: ignore[union-attr]
    assert names == [f"L{i}" for i in range(8)]


def test_cache_file_is_private(private_cache: Path, counting: CountingLeadBackend) -> None:
    cache = open_cache(None)
    assert cache is not None
    run_batch(op_for(counting), [lead("A")], cache=cache)
    path = private_cache / FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(private_cache.stat().st_mode) == 0o700


def test_an_existing_cache_file_with_loose_permissions_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "c" / FILE_NAME
    path.parent.mkdir()
    path.touch(mode=0o644)
    path.chmod(0o644)
    ResultCache(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_one_switch_turns_the_cache_off(private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(options, "cache", False)
    assert open_cache(None) is None
    assert open_cache(False) is None
    assert not (private_cache / FILE_NAME).exists()


def test_a_cache_file_that_is_not_a_database_is_moved_aside_and_rebuilt(private_cache: Path,
                                                                         counting: CountingLeadBackend) -> None:
    private_cache.mkdir(parents=True)
    (private_cache / FILE_NAME).write_bytes(b"this is not a database" * 100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache = open_cache(None)
    assert cache is not None and len([w for w in caught if "damaged" in str(w.message)]) == 1
    assert any(p.name.startswith(f"{FILE_NAME}.corrupt-") for p in private_cache.iterdir())
    assert run_batch(op_for(counting), [lead("A")], cache=cache).items[0].ok


def test_cache_housekeeping(private_cache: Path, counting: CountingLeadBackend) -> None:
    cache = open_cache(None)
    assert cache is not None
    run_batch(op_for(counting), [lead("A"), lead("B")], cache=cache)
    assert cache.stats()["answers"] == 2 and len(cache) == 2
    assert cache.prune(older_than_days=1) == 0
    cache.clear()
    assert len(cache) == 0


def test_a_key_sharing_its_rowid_with_another_is_a_miss_not_a_wrong_answer(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / FILE_NAME)
    stored, other = b"12345678" + b"a" * 12, b"12345678" + b"b" * 12  # same first 8 bytes, same rowid
    cache.put_many([(stored, b"answer")])
    assert cache.get_many([other]) == {}
    assert cache.get_many([stored, other]) == {stored: b"answer"}
    cache.close()


def test_the_input_echo_is_not_stored_but_answers_are_whole(private_cache: Path) -> None:
    from dqkit.backends.local import LocalBackend
    from dqkit.notebook.leads import lead_job

    backend = LocalBackend()
    job = lead_job(backend, {"FIRST_NAME": "FIRST_NAME", "LAST_NAME": "LAST_NAME", "ZIP": "ZIP"})
    cache = open_cache(None)
    fresh = run_batch(job.operation, [lead("Lee")], cache=cache).items[0].result
    again = run_batch(job.operation, [lead("Lee")], cache=cache).items[0].result
    assert fresh is not None and fresh.input_data is not None
    assert again is not None and again.input_data is None
    assert again.message == fresh.message and again.stage1_data == fresh.stage1_data


def test_environment_switches_are_read_at_import(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    code = ("from dqkit.notebook.settings import options; "
            "print(options.cache, options.progress, options.cache_directory())")
    env = {**os.environ, "DQKIT_CACHE": "0", "DQKIT_PROGRESS": "off", "DQKIT_CACHE_DIR": str(tmp_path / "c")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", str(tmp_path / "c")]


def test_local_answers_are_cached_per_engine_build(tmp_path: Path) -> None:
    """An in-process engine's cache namespace names the engines' build (version + a hash of their code and
    tables), so an answer cached by other engine code is never served; a change to a word list changes it."""
    import shutil

    import dqkit.notebook.pipeline as pipeline
    from dqkit.backends.local import LocalBackend

    build = pipeline.engine_build()
    version, _, digest = build.partition("+")
    assert version and len(digest) == 16
    assert f"dqkit-{build}|lead.verify" in pipeline.namespace(LocalBackend(reference="demo"), "lead.verify")
    root = Path(pipeline.__file__).resolve().parents[1]
    for folder in ("engines", "contract"):
        shutil.copytree(root / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    assert pipeline.code_hash(tmp_path) == digest
    words = tmp_path / "engines" / "lead" / "wordlists" / "placeholder_tokens.txt"
    words.write_text(words.read_text(encoding="utf-8") + "changed\n", encoding="utf-8")
    assert pipeline.code_hash(tmp_path) != digest



def test_the_engine_build_is_hashed_only_for_the_cache(tmp_path: Path) -> None:
    """Leads verified without the result cache never hash the engines' code (15 ms of a fresh kernel's first 10
    leads, issue 31); with the cache, a namespace made when first asked for keys answers as the whole string."""
    import os
    import sqlite3
    import subprocess
    import sys

    import dqkit.notebook.pipeline as pipeline
    from dqkit.backends.local import LocalBackend

    code = ("import pandas as pd, dqkit, dqkit.notebook.pipeline as p\n"
            "df = pd.DataFrame([{'first_name': 'Ann', 'last_name': 'Lee', 'zip': '95834'}])\n"
            "df.leads.verify(progress=False, cache=False)\n"
            "print(p.engine_build.cache_info().currsize)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "c")})
    assert out.stdout.strip() == "0"

    backend = LocalBackend()
    whole = pipeline.namespace(backend, "lead.verify")
    assert f"dqkit-{pipeline.engine_build()}|lead.verify" in whole
    keys = []
    for name, ns in (("whole", whole), ("lazy", pipeline.lazy_namespace(backend, "lead.verify"))):
        (tmp_path / name).mkdir()
        run_batch(Operation(namespace=ns, result_type=ELSGenericMessage, call=backend.verify_leads),
                  [lead("Smith"), lead("Jones")], cache=ResultCache(tmp_path / name / FILE_NAME))
        with sqlite3.connect(tmp_path / name / FILE_NAME) as con:
            keys.append(sorted(bytes(k) for (k,) in con.execute("SELECT key FROM results")))
    assert len(keys[0]) == 2 and keys[0] == keys[1]
