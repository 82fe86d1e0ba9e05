"""Bad input is refused with the file and line named, and the installed references stay exactly as they were; an
interrupted add resumes without redoing the inputs it had finished."""

from __future__ import annotations

import gzip
import os
import zipfile
from pathlib import Path

import pytest
from ref_layouts import oa_csv_text

from dqkit import reference
from dqkit.cli import main
from dqkit.contract.address import Confidence, SearchRequest
from dqkit.contract.errors import InputError


def _snapshot(refdir: Path) -> dict[str, tuple[int, int]]:
    """Every installed file with its size and modification time (staging folders left out)."""
    out = {}
    for p in sorted(refdir.rglob("*")):
        rel = p.relative_to(refdir)
        if p.is_file() and not rel.parts[0].startswith("."):
            st = p.stat()
            out[str(rel)] = (st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture
def installed(tmp_path: Path, portland: list[dict[str, str]]) -> dict[str, tuple[int, int]]:
    """One reference installed before each bad add (so "untouched" means something)."""
    src = tmp_path / "ok" / "us" / "or" / "portland.csv"
    src.parent.mkdir(parents=True)
    src.write_text(oa_csv_text(portland), encoding="utf-8")
    reference.add(src)
    return _snapshot(Path(os.environ["DQKIT_REFERENCE_DIR"]))


def _bad(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / "bad" / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return p


def test_bad_inputs_are_refused_naming_file_and_line(tmp_path: Path, refdir: Path, installed: dict[str, object],
                                                     alameda: list[dict[str, str]],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    text = oa_csv_text(alameda[:300])
    wrong_cols = _bad(tmp_path, "cols.csv", b"lon,lat,house,road\n1,2,3,Main St\n")
    lines = text.encode().split(b"\n")
    lines[120] = lines[120].replace(b",", b",\xe9\xff", 1)  # Latin-1 / garbage bytes on line 121
    latin = _bad(tmp_path, "latin.csv", b"\n".join(lines))
    gz = gzip.compress(text.encode())
    cut_gz = _bad(tmp_path, "cut.csv.gz", gz[: len(gz) // 2])
    zpath = tmp_path / "bad" / "bundle.zip"
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("us/ca/alameda.csv", text)
    cut_zip = _bad(tmp_path, "cut.zip", zpath.read_bytes()[:-200])
    bad_json = _bad(tmp_path, "x.geojsonl", b'{"type":"Feature","properties":{"number":"1","street":"A"}}\n{oops\n')
    cases = [
        (wrong_cols, r"cols\.csv: not an OpenAddresses file \(needs NUMBER and STREET"),
        (latin, r"latin\.csv, line 121: not UTF-8 text"),
        (cut_gz, r"cut\.csv\.gz, line \d+: the file is cut short or damaged"),
        (cut_zip, r"cut\.zip: not a readable zip file .*download it again"),
        (bad_json, r"x\.geojsonl, line 2: not a GeoJSON Feature"),
        (tmp_path / "missing.csv", r"no such file: .*missing\.csv"),
    ]
    for path, message in cases:
        with pytest.raises(InputError, match=message):
            reference.add(path, region="CA")
        assert _snapshot(refdir) == installed, path
    # the CLI says the same in one line, exit status 1
    assert main(["reference", "add", str(latin), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("dqkit reference: ") and "line 121" in err and "Traceback" not in err
    assert [m.id for m in reference.list_installed()] == ["openaddresses-us-or-portland"]


def test_an_interrupted_add_resumes_without_redoing_finished_files(tmp_path: Path, refdir: Path,
                                                                  installed: dict[str, object],
                                                                  alameda: list[dict[str, str]],
                                                                  santa_clara: list[dict[str, str]],
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "dl" / "us" / "ca"
    folder.mkdir(parents=True)
    first, second = folder / "a_alameda.csv", folder / "b_santa_clara.csv"
    first.write_text(oa_csv_text(alameda), encoding="utf-8")
    good_second = oa_csv_text(santa_clara).encode()
    second.write_bytes(good_second[:5000] + b"\xff\xfe" + good_second[5000:])  # bad bytes: the add stops there
    with pytest.raises(InputError, match=r"b_santa_clara\.csv, line"):
        reference.add(folder)
    assert _snapshot(refdir) == installed  # nothing new installed, nothing old touched
    staging = refdir / ".staging-openaddresses-us-ca"
    assert (staging / "parts" / "0.rec").is_file() and not (staging / "parts" / "1.rec").exists()
    assert main(["reference", "list"]) == 0
    assert "unfinished add of 'openaddresses-us-ca'" in capsys.readouterr().err

    # Prove the finished file is not read again: same size and time, but unreadable content now.
    st = first.stat()
    first.write_bytes(b"\xff" * st.st_size)
    os.utime(first, ns=(st.st_atime_ns, st.st_mtime_ns))
    second.write_bytes(good_second)
    assert main(["reference", "add", str(folder)]) == 0
    assert "a_alameda.csv: already imported (5,300 rows), skipped" in capsys.readouterr().err
    m = reference.info("openaddresses-us-ca")
    assert m.rows == 5300 + 4739 and [i.rows_kept for i in m.inputs] == [5300, 4739]  # junk rows dropped
    assert not staging.exists()


def test_an_interrupt_while_building_leaves_the_old_install_working(tmp_path: Path, refdir: Path,
                                                                   alameda: list[dict[str, str]],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "dl" / "us" / "ca" / "alameda.csv"
    src.parent.mkdir(parents=True)
    src.write_text(oa_csv_text(alameda[:2000]), encoding="utf-8")
    reference.add(src)
    before = _snapshot(refdir)
    src.write_text(oa_csv_text(alameda), encoding="utf-8")

    import dqkit.engines.address_index.build as build

    def interrupted(*args: object, **kwargs: object) -> object:  # fault injection: Ctrl-C during the build
        raise KeyboardInterrupt

    monkeypatch.setattr(build, "build_from_records", interrupted)
    with pytest.raises(KeyboardInterrupt):
        reference.add(src, replace=True)
    assert _snapshot(refdir) == before
    engine = reference.open_installed()
    r = alameda[0]
    got = engine.validate(SearchRequest.of(f"{r['NUMBER']} {r['STREET']} {r['POSTCODE']}")).result
    assert got.confidence == Confidence.VERIFIED_MATCH  # the old install still answers
    monkeypatch.undo()
    monkeypatch.setenv("DQKIT_REFERENCE_DIR", str(refdir))
    (m,) = reference.add(src, replace=True)
    assert m.rows == 5300 and m.inputs[0].rows_kept == 5300


def test_unknown_ids_and_options_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no installed reference 'nope'"):
        reference.remove("nope")
    with pytest.raises(InputError, match="unknown source"):
        reference.add(tmp_path, source="bogus")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="reference id"):
        reference.add(tmp_path, id="../etc")
    with pytest.raises(InputError, match="needs at least street"):
        reference.add(tmp_path / "x.csv", mapping=["number=n"])


def test_a_full_disk_is_a_clear_error_and_changes_nothing(tmp_path: Path, refdir: Path,
                                                          installed: dict[str, object],
                                                          alameda: list[dict[str, str]],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    import dqkit.reference.install as inst

    def full(f: object, batch: object) -> None:  # fault injection: the disk fills while records are written
        raise OSError(errno.ENOSPC, "No space left on device", str(refdir / ".staging-x" / "parts" / "0.rec.tmp"))

    monkeypatch.setattr(inst, "_frame", full)
    src = tmp_path / "dl" / "us" / "ca" / "alameda.csv"
    src.parent.mkdir(parents=True)
    src.write_text(oa_csv_text(alameda), encoding="utf-8")
    with pytest.raises(InputError, match="No space left on device; the installed references are unchanged"):
        reference.add(src)
    assert _snapshot(refdir) == installed
