"""What `reference add` keeps and under which id: junk rows dropped and counted (never served), one reference per
county file, an installed id refused unless --replace / --append / --id says what to do, and no staging folder
left by a refused add (an unfinished one is removable by its id)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from ref_layouts import oa_csv_text

from dqkit import reference
from dqkit.cli import main
from dqkit.contract.address import Confidence, SearchRequest
from dqkit.contract.errors import InputError


def _county_files(shared_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The shared county files, unchanged, where an OpenAddresses download puts them."""
    folder = tmp_path / "dl" / "us" / "ca"
    folder.mkdir(parents=True)
    out = []
    for name in ("alameda", "santa_clara"):
        dst = folder / f"{name}.csv"
        shutil.copyfile(shared_dir / "data" / "openaddresses" / f"{name}.csv", dst)
        out.append(dst)
    return out[0], out[1]


def test_junk_rows_of_real_county_files_are_dropped_counted_and_never_served(
        shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alameda, santa_clara = _county_files(shared_dir, tmp_path)
    assert main(["reference", "add", str(alameda), str(santa_clara), "--quiet"]) == 0
    said = capsys.readouterr().out
    assert "dropped 180 rows: 173 no street (empty or unreadable); 7 no postcode" in said
    m = reference.info("openaddresses-us-ca")
    # "123 Fake St, Anytown" in both (no ZIP; projected in one) + 5 more; 173 Santa Clara rows have no street
    assert m.dropped == {"no_street": 173, "no_postcode": 7}
    assert [i.dropped for i in m.inputs] == [{"no_postcode": 6}, {"no_street": 173, "no_postcode": 1}]
    assert main(["reference", "info", m.id]) == 0
    info = capsys.readouterr().out
    assert '"no_postcode": 7' in info and "dropped 180 rows: 173 no street" in info
    engine = reference.open_installed()
    for text in ("123 Fake St, Anytown", "123 FAKE ST, ANYTOWN, CA", "123 Fake St"):
        got = engine.validate(SearchRequest.of(text)).result
        assert got.confidence != Confidence.VERIFIED_MATCH, text
        found = engine.search(SearchRequest.of(text, max_suggestions=10)).result
        assert all("FAKE" not in (s.text or "").upper() for s in found.suggestions), text
    real = engine.validate(SearchRequest.of("2653 Meridian Ave, San Jose, CA 95124")).result
    assert real.confidence == Confidence.VERIFIED_MATCH


def test_each_reason_a_row_is_not_served(tmp_path: Path, alameda: list[dict[str, str]]) -> None:
    good = [r for r in alameda if r["POSTCODE"] and r["LON"] and r["CITY"]][:40]
    junk = [
        dict(good[0], NUMBER="1", LON="0", LAT="0"),  # 0/0
        dict(good[1], NUMBER="2", LON="-13575131", LAT="4483791"),  # projected metres
        dict(good[2], NUMBER="3", LON="-122.6", LAT="45.5"),  # Portland, Oregon, in a California file
        dict(good[3], NUMBER="4", LON="", LAT=""),  # no coordinates
        dict(good[4], NUMBER="5", STREET="TEST ST"),  # placeholder street
        dict(good[5], NUMBER="6", CITY="ANYTOWN"),  # placeholder city
        dict(good[6], NUMBER="7", POSTCODE=""),  # no postcode
        dict(good[7]), dict(good[8]), dict(good[8]),  # exact duplicates of kept rows
    ]
    src = tmp_path / "dl" / "us" / "ca" / "alameda.csv"
    src.parent.mkdir(parents=True)
    src.write_text(oa_csv_text(good + junk), encoding="utf-8")
    (m,) = reference.add(src)
    assert m.dropped == {"no_postcode": 1, "no_coordinates": 1, "bad_coordinates": 2, "outside_region": 1,
                         "placeholder": 2, "duplicate": 3}
    assert m.rows == len(good) and m.inputs[0].rows_read == len(good) + len(junk)


def test_two_county_files_get_two_ids_and_an_installed_id_is_refused(
        shared_dir: Path, tmp_path: Path, refdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alameda, santa_clara = _county_files(shared_dir, tmp_path)
    (a,) = reference.add(alameda)
    (s,) = reference.add(santa_clara)
    assert (a.id, s.id) == ("openaddresses-us-ca-alameda", "openaddresses-us-ca-santa-clara")
    assert [m.id for m in reference.list_installed()] == [a.id, s.id]  # Alameda is still there
    engine = reference.open_installed()
    for text in ("2653 Meridian Ave, San Jose, CA 95124", "516 Centre Ct, Alameda, CA 94502"):
        assert engine.validate(SearchRequest.of(text)).result.confidence == Confidence.VERIFIED_MATCH, text

    with pytest.raises(InputError, match=r"'openaddresses-us-ca-alameda' is installed already .*--id NAME.*"
                                         r"--replace.*--append"):
        reference.add(alameda)
    assert not [p for p in refdir.iterdir() if p.name.startswith(".")]  # the refusal left no staging behind
    assert main(["reference", "add", str(alameda), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "--replace" in err and "Traceback" not in err
    assert main(["reference", "add", str(alameda), "--quiet", "--replace"]) == 0
    assert main(["reference", "add", str(alameda), "--quiet", "--id", "alameda-2"]) == 0
    with pytest.raises(SystemExit):  # one or the other
        main(["reference", "add", str(alameda), "--quiet", "--replace", "--append"])
    capsys.readouterr()
    assert sorted(m.id for m in reference.list_installed()) == ["alameda-2", a.id, s.id]


def test_append_adds_rows_to_an_installed_reference(tmp_path: Path, alameda: list[dict[str, str]]) -> None:
    rows = [r for r in alameda if r["POSTCODE"] and r["LON"] and r["CITY"] and not r["UNIT"]]
    first, second = tmp_path / "a" / "part1.csv", tmp_path / "b" / "part2.csv"
    for path, part in ((first, rows[:1000]), (second, rows[1000:2000])):
        path.parent.mkdir(parents=True)
        path.write_text(oa_csv_text(part), encoding="utf-8")
    (m1,) = reference.add(first, region="CA", id="mine")
    later = rows[1500]
    text = f"{later['NUMBER']} {later['STREET']}, {later['CITY']} CA {later['POSTCODE']}"
    assert reference.open_installed().validate(SearchRequest.of(text)).result.confidence != \
        Confidence.VERIFIED_MATCH
    with pytest.raises(InputError, match="--append: no installed reference 'other'"):
        reference.add(second, region="CA", id="other", append=True)
    (m2,) = reference.add(second, region="CA", id="mine", append=True)
    assert (m1.rows, m2.rows) == (1000, 2000) and [i.name for i in m2.inputs] == [str(first), str(second)]
    assert reference.open_installed().validate(SearchRequest.of(text)).result.confidence == \
        Confidence.VERIFIED_MATCH
    (m3,) = reference.add(second, region="CA", id="mine", append=True)  # the same input again: it replaces itself
    assert m3.rows == 2000 and [i.name for i in m3.inputs] == [str(first), str(second)]


def test_an_unfinished_add_is_listed_and_removed_by_its_id(tmp_path: Path, refdir: Path,
                                                           alameda: list[dict[str, str]],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "dl" / "us" / "ca"
    folder.mkdir(parents=True)
    (folder / "a.csv").write_text(oa_csv_text(alameda[:500]), encoding="utf-8")
    # both files lie in Alameda County (their names say no county): the reference is named after it
    (folder / "b.csv").write_bytes(oa_csv_text(alameda[500:600]).encode() + b"\xff\xfe,bad\n")
    with pytest.raises(InputError, match=r"b\.csv, line .*finished before are kept.*reference remove "
                                         r"openaddresses-us-ca-alameda"):
        reference.add(folder)
    staging = refdir / ".staging-openaddresses-us-ca-alameda"
    assert staging.is_dir() and not list(staging.rglob("*.tmp"))  # resumable; no half-written part
    assert main(["reference", "list"]) == 0
    assert "`dqkit reference remove openaddresses-us-ca-alameda`" in capsys.readouterr().err
    assert main(["reference", "remove", "openaddresses-us-ca-alameda"]) == 0
    assert "removed the unfinished add of openaddresses-us-ca-alameda" in capsys.readouterr().out
    assert not staging.exists() and not list(refdir.iterdir())
    with pytest.raises(InputError, match="no unfinished add of 'x'"):
        reference.remove(".staging-x")
    # a file that holds no addresses leaves nothing behind
    (folder / "b.csv").write_text("NUMBER,STREET\n,\n", encoding="utf-8")
    with pytest.raises(InputError, match="no usable address rows"):
        reference.add(folder / "b.csv")
    assert not list(refdir.iterdir())


@pytest.mark.parametrize("action", ["list", "info", "remove"])
def test_reference_actions_have_a_description(action: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["reference", action, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    head = text.split("positional arguments")[0].split("options:")[0]
    assert len(head.split("usage:")[1].split("]", 1)[-1].split()) > 8, text  # more than the usage line


def test_index_build_cleans_the_same_way(shared_dir: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from dqkit.engines.address import AddressEngine

    files = [str(shared_dir / "data" / "openaddresses" / f"{n}.csv") for n in ("alameda", "santa_clara")]
    out = tmp_path / "clean.dqidx"
    assert main(["index", "build", *files, "-o", str(out), "--country", "US"]) == 0
    assert "dropped 7 rows: 7 no postcode" in capsys.readouterr().out
    got = AddressEngine.open(out).validate(SearchRequest.of("123 Fake St, Anytown")).result
    assert got.confidence != Confidence.VERIFIED_MATCH
    # the Python API and `dqkit serve --reference FILE` build the same way (AddressEngine.from_files)
    got = AddressEngine.from_files(files, out=tmp_path / "api.dqidx", country_iso2="US").validate(
        SearchRequest.of("123 Fake St, Anytown")).result
    assert got.confidence != Confidence.VERIFIED_MATCH, got
    kept = tmp_path / "kept.dqidx"  # kept only when asked by name
    assert main(["index", "build", *files, "-o", str(kept), "--country", "US", "--keep-every-row"]) == 0
    assert "dropped" not in capsys.readouterr().out
    got = AddressEngine.open(kept).validate(SearchRequest.of("123 Fake St, Anytown")).result
    assert got.confidence == Confidence.VERIFIED_MATCH, got
