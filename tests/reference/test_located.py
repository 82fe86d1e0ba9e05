"""A reference knows where it is from its points (issue 29, part 1): a county file in a two-letter folder is not
that country, a download without a path gets the README's id, an option the points contradict is refused in one
line naming both, `dqkit index build` reads files the same way, `reference list` says what the engine asks each
reference about, and every row `reference add` reads is accounted for."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from ref_layouts import oa_csv_text

from dqkit import reference
from dqkit.cli import main
from dqkit.contract.address import Confidence, SearchRequest
from dqkit.contract.errors import InputError
from dqkit.engines.address_index import ReferenceIndex
from dqkit.engines.address_index.located import locate
from dqkit.reference.api import ReferenceNote

REAL = "1216 Santa Clara Ave, Alameda, CA 94501"


def _copy(shared_dir: Path, name: str, dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shared_dir / "data" / "openaddresses" / f"{name}.csv", dest)
    return dest


def test_a_county_file_in_a_two_letter_folder_is_where_its_points_are(shared_dir: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    src = _copy(shared_dir, "alameda", tmp_path / "nc" / "alameda.csv")
    assert main(["reference", "add", str(src), "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "installed openaddresses-us-ca-alameda:" in out and "(openaddresses, US/CA)" in out
    assert "the path's 'nc' is not taken as the country (New Caledonia)" in err and "Alameda County" in err
    (m,) = reference.list_installed()
    assert (m.id, m.country, m.region) == ("openaddresses-us-ca-alameda", "US", "CA")
    got = reference.open_installed().validate(SearchRequest.of(REAL)).result
    assert got.confidence == Confidence.VERIFIED_MATCH
    # the list says what the engine asks it about: US addresses
    assert main(["reference", "list"]) == 0
    listed = capsys.readouterr().out
    assert "openaddresses-us-ca-alameda" in listed and "addresses in United States" in listed
    engine = reference.open_installed()
    assert [e.reference.id for e in engine.engines_for("USA")] == [m.id]


def test_a_download_without_a_path_gets_the_readme_id(shared_dir: Path, tmp_path: Path) -> None:
    (a,) = reference.add(_copy(shared_dir, "alameda", tmp_path / "Downloads" / "alameda.csv"))
    (s,) = reference.add(_copy(shared_dir, "santa_clara", tmp_path / "Downloads" / "santa_clara.csv"))
    assert (a.id, s.id) == ("openaddresses-us-ca-alameda", "openaddresses-us-ca-santa-clara")
    assert (a.region, s.region) == ("CA", "CA")
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "`alameda.csv` becomes `openaddresses-us-ca-alameda`" in readme


def test_a_file_named_after_nothing_is_named_after_its_county_and_claims_no_coverage(
        shared_dir: Path, tmp_path: Path) -> None:
    (m,) = reference.add(_copy(shared_dir, "santa_clara", tmp_path / "Downloads" / "export.csv"))
    assert m.id == "openaddresses-us-ca-santa-clara"
    assert not m.complete_zips  # nothing says it is the whole county: a street it lacks is "not checked"


def test_an_option_the_points_contradict_is_refused_naming_both(shared_dir: Path, tmp_path: Path,
                                                                refdir: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    src = _copy(shared_dir, "alameda", tmp_path / "alameda.csv")
    assert main(["reference", "add", str(src), "--region", "NV", "--quiet"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--region NV" in err and "US/CA" in err and "Alameda County" in err
    with pytest.raises(InputError, match=r"--country NC \(New Caledonia\), but its addresses are in US/CA"):
        reference.add(src, country="NC")
    assert not refdir.exists() or not list(refdir.iterdir())  # nothing installed, no staging left
    (m,) = reference.add(src, region="CA")  # an option the points agree with is taken
    assert m.region == "CA"


def test_points_of_another_country_are_never_tagged_us(tmp_path: Path) -> None:
    # 30 Berlin points: "10115" is a US ZIP too (New York), but not where these points are
    rows = [{"LON": f"{13.38 + i / 1000:.4f}", "LAT": "52.53", "NUMBER": str(i + 1), "STREET": "Invalidenstrasse",
             "UNIT": "", "CITY": "Berlin", "DISTRICT": "", "REGION": "", "POSTCODE": "10115", "ID": ""}
            for i in range(30)]
    loose = tmp_path / "berlin.csv"
    loose.write_text(oa_csv_text(rows), encoding="utf-8")
    assert locate(rows).not_us and not locate(rows).us
    with pytest.raises(InputError, match=r"berlin\.csv: its points are not US addresses .* --country"):
        reference.add(loose)
    with pytest.raises(InputError, match=r"--country US, but its points are not US addresses"):
        reference.add(loose, country="US")
    placed = tmp_path / "de" / "berlin.csv"
    placed.parent.mkdir()
    shutil.copyfile(loose, placed)
    (m,) = reference.add(placed)  # the path names the country, and the points do not say otherwise
    assert (m.id, m.country) == ("openaddresses-de-berlin", "DE")


def test_index_build_reads_where_a_file_is_from_its_points(shared_dir: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    src = _copy(shared_dir, "alameda", tmp_path / "nc" / "alameda.csv")
    out = tmp_path / "alameda.dqidx"
    assert main(["index", "build", str(src), "-o", str(out)]) == 0
    assert "the path's 'nc' is not taken as the country" in capsys.readouterr().err
    assert [d.iso2 for d in ReferenceIndex(out).datasets] == ["US"]
    assert main(["index", "build", str(src), "-o", str(out), "--country", "NC"]) == 1
    assert "--country NC (New Caledonia), but its addresses are in US/CA" in capsys.readouterr().err


def test_every_row_read_is_kept_or_counted(shared_dir: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    src = _copy(shared_dir, "santa_clara", tmp_path / "santa_clara.csv")
    assert main(["reference", "add", str(src), "--quiet"]) == 0
    assert "dropped 174 rows: 173 no street (empty or unreadable); 1 no postcode" in capsys.readouterr().out
    (m,) = reference.list_installed()
    (i,) = m.inputs
    assert (i.rows_read, i.rows_kept, sum(i.dropped.values())) == (4913, 4739, 174)
    assert sum(f.rows_read for f in m.inputs) == m.rows + sum(m.dropped.values())


def test_a_reference_tagged_with_the_wrong_country_before_is_named_by_the_list(
        shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dqkit.reference.install import SourceMeta, install
    from dqkit.reference.sources import openaddresses

    # what `reference add nc/alameda.csv` made before the points were read: installed as NC
    src = _copy(shared_dir, "alameda", tmp_path / "nc" / "alameda.csv")
    parts = openaddresses.parts_of([src])
    assert parts[0].iso2 == "NC"  # the path's hint, before `locate_parts`
    m = install(parts, "openaddresses-nc-alameda", SourceMeta("openaddresses", "test"), progress=False)
    assert main(["reference", "list"]) == 0
    out, err = capsys.readouterr()
    assert "addresses in New Caledonia" in out  # what the engine asks it about, said where it is listed
    assert f"warning: {m.id} is tagged NC but holds US addresses (US/CA, Alameda County: " in err
    assert "answers no US address" in err
    assert reference.open_installed().engines_for("USA") == []


def test_the_note_is_a_warning_python_callers_see(shared_dir: Path, tmp_path: Path) -> None:
    src = _copy(shared_dir, "alameda", tmp_path / "nc" / "alameda.csv")
    with pytest.warns(ReferenceNote, match="not taken as the country"):
        reference.add(src)
