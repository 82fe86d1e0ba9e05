"""Files that survive and secrets that stay hidden (issue 13, parts 5 and 6). Real files, real SQLite, a real
`dqkit serve`; mocks only to inject faults (a full disk)."""

from __future__ import annotations

import errno
import os
import stat
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dqkit
from dqkit._cell_escape import escape_cell
from dqkit._files import OutputError, atomic_write, private_dir
from dqkit.cli import main
from dqkit.notebook.cache import FILE_NAME, ResultCache
from dqkit.server.testing import serve_process

LEADS = "first_name,last_name,zip,note\nMaria,Garcia,20500,=HYPERLINK(\"http://x\")\nBob,Smith,12345,@SUM(1+1)\n"


def test_verify_escapes_formulas_by_default_and_can_be_told_not_to(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text(LEADS)
    assert main(["verify", str(src), "-o", str(tmp_path / "a.csv"), "--quiet", "--no-cache"]) == 0
    out = pd.read_csv(tmp_path / "a.csv", dtype=str, keep_default_na=False)
    assert list(out["note"]) == ["'=HYPERLINK(\"http://x\")", "'@SUM(1+1)"]
    assert main(["verify", str(src), "-o", str(tmp_path / "b.csv"), "--quiet", "--no-cache",
                 "--no-escape-formulas"]) == 0
    assert list(pd.read_csv(tmp_path / "b.csv", dtype=str)["note"]) == ["=HYPERLINK(\"http://x\")", "@SUM(1+1)"]


def test_formula_escaping_leaves_plain_numbers_alone() -> None:
    for value in ("-12.5", "+3", "1e5", "-.5", "plain", "", "a=b"):
        assert escape_cell(value) == value
    # "-1-1" and a phone with a dash are expressions a spreadsheet computes (issue 24, part 4)
    for value in ("=1+1", "+A1", "-2+3", "@SUM(A1)", "\tx", "\rx", "-1-1", "+1 (202) 456-1111", "\uff1d1+1"):
        assert escape_cell(value) == "'" + value


def test_a_formula_after_a_line_break_inside_a_cell_is_neutralised() -> None:
    assert escape_cell("web form\r=cmd|' /C calc'!A0") == "web form\r'=cmd|' /C calc'!A0"
    assert escape_cell("a\n@SUM(1)\r\n-1-1\nok") == "a\n'@SUM(1)\r\n'-1-1\nok"
    assert escape_cell("\n=1") == "'\n'=1"
    assert escape_cell("two\nlines") == "two\nlines"


def test_verify_output_quotes_every_line_break_and_holds_no_live_formula(tmp_path: Path) -> None:
    """A bare CR in a lead value must not end the CSV row (issue 24: it became a new row starting with a formula)."""
    import csv

    src = tmp_path / "in.csv"
    pd.DataFrame({"first_name": ["Maria", "Bob"], "last_name": ["Garcia", "Smith"], "zip": ["20500", "12345"],
                  "note": ["web form\r=cmd|' /C calc'!A0", "-1-1"]}).to_csv(src, index=False, lineterminator="\r\n")
    out = tmp_path / "out.csv"
    assert main(["verify", str(src), "-o", str(out), "--quiet", "--no-cache"]) == 0
    raw = out.read_bytes()
    assert b'"web form\r\'=cmd' in raw  # the cell is quoted and its second line neutralised
    with out.open(newline="") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == 3  # the header and two leads: no row made of the cell's second line
    for row in rows:
        for cell in row:
            for line in cell.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
                assert not line.startswith(("=", "+", "-", "@")) or line.lstrip("+-").replace(".", "").isdigit(), row
    note = rows[0].index("note")
    assert [r[note] for r in rows[1:]] == ["web form\r'=cmd|' /C calc'!A0", "'-1-1"]
    # even unescaped (--no-escape-formulas), a cell holding a bare CR stays one quoted cell
    assert main(["verify", str(src), "-o", str(tmp_path / "raw.csv"), "--quiet", "--no-cache",
                 "--no-escape-formulas"]) == 0
    with (tmp_path / "raw.csv").open(newline="") as fh:
        assert len(list(csv.reader(fh))) == 3


def test_header_only_input_gives_an_empty_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "h.csv"
    src.write_text("first_name,last_name,zip\n")
    assert main(["verify", str(src), "-o", str(tmp_path / "o.csv"), "--quiet", "--no-cache"]) == 0
    assert "no data rows" in capsys.readouterr().out
    out = pd.read_csv(tmp_path / "o.csv")
    assert len(out) == 0 and "result_code" in out.columns
    (tmp_path / "e.csv").write_text("")
    assert main(["verify", str(tmp_path / "e.csv"), "-o", str(tmp_path / "o2.csv"), "--quiet"]) != 0
    assert "is empty" in capsys.readouterr().err
    assert not (tmp_path / "o2.csv").exists()


def test_a_full_disk_leaves_the_old_output_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.csv"
    src.write_text(LEADS)
    dest = tmp_path / "out.csv"
    dest.write_text("the old, good output\n")
    real = pd.DataFrame.to_csv

    def full_disk(self: pd.DataFrame, path: Any = None, *args: Any, **kwargs: Any) -> Any:
        real(self.head(1), path, *args, **kwargs)  # part of the file is written, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", full_disk)
    assert main(["verify", str(src), "-o", str(dest), "--quiet", "--no-cache"]) != 0
    err = capsys.readouterr().err
    assert "the disk is full" in err and "previous file is unchanged" in err
    said = [line for line in err.strip().splitlines()  # besides the columns read and a missing-column warning
            if not line.startswith(("columns read:", "  ", "warning: no "))]
    assert "Traceback" not in err and len(said) == 1, err
    assert dest.read_text() == "the old, good output\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_atomic_write_keeps_the_old_file_when_the_writer_fails(tmp_path: Path) -> None:
    dest = tmp_path / "x.txt"
    dest.write_text("old")
    with pytest.raises(RuntimeError), atomic_write(dest) as f:
        f.write("half")
        raise RuntimeError("crash mid-write")
    assert dest.read_text() == "old"
    with atomic_write(dest) as f:
        f.write("new")
    assert dest.read_text() == "new"
    with pytest.raises(OutputError, match="cannot write"), atomic_write(tmp_path / "no-such-dir" / "y.txt") as f:
        f.write("x")


def test_a_corrupt_result_cache_is_moved_aside_and_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "cache" / FILE_NAME
    cache = ResultCache(path)
    cache.put_many([(i.to_bytes(4, "big") * 5, os.urandom(300)) for i in range(5000)])
    cache.close()
    size = path.stat().st_size
    with open(path, "r+b") as f:  # damage interior pages, keep the header
        for off in range(3 * 4096, size, 5 * 4096):
            f.seek(off + 64)
            f.write(b"\xff" * 1500)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fresh = ResultCache(path)
        fresh.put_many([(b"k" * 20, b"v")])
        assert fresh.get_many([b"k" * 20]) == {b"k" * 20: b"v"}
        fresh.close()
    assert len([w for w in caught if "damaged" in str(w.message)]) == 1
    assert any(p.name.startswith(f"{FILE_NAME}.corrupt-") for p in path.parent.iterdir())
    with warnings.catch_warnings(record=True) as caught:  # the next run: no warning at all
        warnings.simplefilter("always")
        ResultCache(path).close()
    assert not caught


def test_private_dirs_are_0700_and_refuse_symlinks(tmp_path: Path) -> None:
    d = private_dir(tmp_path / "a" / "b")
    assert stat.S_IMODE(d.stat().st_mode) == 0o700
    (tmp_path / "open").mkdir(mode=0o777)
    os.chmod(tmp_path / "open", 0o777)
    assert stat.S_IMODE(private_dir(tmp_path / "open").stat().st_mode) == 0o700
    (tmp_path / "link").symlink_to(tmp_path / "open")
    with pytest.raises(OSError):
        private_dir(tmp_path / "link")


def test_the_index_never_falls_back_to_a_predictable_shared_path(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from dqkit.engines.address.cache import demo_index

    planted = tmp_path / "planted"
    planted.mkdir()
    (tmp_path / "cache-link").symlink_to(planted)  # someone else's directory in the cache's place
    monkeypatch.setenv("DQKIT_CACHE_DIR", str(tmp_path / "cache-link"))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    path = demo_index()
    assert planted not in path.parents and path.parent.name.startswith("dqkit-index-")
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.parent != demo_index().parent  # a fresh random directory each time: nothing to plant in advance


def test_no_frame_of_dqkit_holds_the_plain_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """During a request and in a traceback with locals, the token shows nowhere (fault injection in httpx)."""
    import httpx

    from dqkit.client import LeadClient
    from dqkit.client._transport import AsyncTransport
    from dqkit.contract.lead import LeadRequest

    token = "s3cret-token-value-4711"
    seen: list[str] = []

    class Spy(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            assert request.headers["auth-token"] == token  # the header did reach the wire
            frame = sys._getframe(1)
            while frame is not None:
                if frame.f_globals.get("__name__", "").startswith("dqkit"):
                    seen.extend(repr(v) for v in frame.f_locals.values())
                    seen.extend(repr(v) for v in getattr(frame.f_locals.get("self"), "__dict__", {}).values())
                frame = frame.f_back
            raise httpx.ConnectError("injected")

    with serve_process(tokens=[token]) as server:
        monkeypatch.setattr(AsyncTransport, "_make_transport", lambda self: Spy())
        client = LeadClient(server.url, token=token, max_attempts=1)
        try:
            client.verify_lead(LeadRequest(first_name="A", last_name="B", zip="20500"))
        except Exception as exc:
            tb = traceback.TracebackException.from_exception(exc, capture_locals=True)
            assert "injected" in "".join(tb.format())
            dqkit_frames = [f for f in tb.stack if is_dqkit_frame(f.filename)]
            assert dqkit_frames and all(token not in repr(f.locals) for f in dqkit_frames)
        else:
            raise AssertionError("the injected fault did not surface")
        finally:
            client.close()
    assert seen and not any(token in s for s in seen)


PACKAGE = Path(dqkit.__file__).resolve().parent


def is_dqkit_frame(filename: str) -> bool:
    """A traceback frame of dqkit's own code: under the package's folder, not merely under some folder named dqkit
    (a clone's default name, whose .venv holds httpx and every other library)."""
    return Path(filename).resolve().is_relative_to(PACKAGE)


def test_dqkit_frames_are_told_apart_in_a_clone_named_dqkit(tmp_path: Path) -> None:
    clone = tmp_path / "dqkit"
    assert not is_dqkit_frame(str(clone / ".venv/lib/python3.11/site-packages/httpx/_client.py"))
    assert not is_dqkit_frame(str(clone / "tests/hardening/test_files_and_secrets.py"))
    assert is_dqkit_frame(str(PACKAGE / "client" / "_transport.py"))
