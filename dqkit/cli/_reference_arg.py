"""`--reference` in every command: a file (an OpenAddresses CSV or .csv.gz, or an index `dqkit index build`
wrote) or the id of an installed reference (`dqkit reference list`), whichever it names.

`dqkit verify`, `dqkit validate` and `dqkit serve` read it the same way, so a user who added a county with
`dqkit reference add` can name it by its id anywhere, and a file can be tried without installing it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from dqkit.contract.errors import InputError

if TYPE_CHECKING:
    from dqkit.engines.address import AddressEngine

INDEX_SUFFIXES = (".dqidx", ".idx")


def split_references(values: Iterable[str | Path], *, demo: bool = False) -> tuple[list[Path], list[str]]:
    """(files, installed ids) that `values` name; "demo" counts as an id when `demo`. InputError for a value
    that is neither (naming the installed ids), and for files and ids mixed."""
    from dqkit.reference import store

    files: list[Path] = []
    ids: list[str] = []
    installed: list[str] | None = None
    for value in values:
        text = str(value).strip()
        path = Path(text).expanduser()
        if path.is_file():
            files.append(path)
            continue
        if demo and text.lower() == "demo":
            ids.append("demo")
            continue
        if installed is None:
            installed = [m.id for m in store.installed()]
        if text.lower() in installed:
            ids.append(text.lower())
            continue
        have = ", ".join(installed) if installed else "none"
        raise InputError(f"--reference {text!r}: no such file, and no installed reference of that id (installed: "
                         f"{have}; `dqkit reference list`)")
    if files and ids:
        raise InputError("--reference: give reference files or installed reference ids, not both")
    if len(ids) > 1 and "demo" in ids:
        raise InputError("--reference demo is the synthetic demo alone; it does not mix with real references")
    return files, ids


def file_engine(files: list[Path], *, complete: bool = False) -> AddressEngine:
    """An address engine over reference files (one index file as it is, else CSV files built into one), named
    as `dqkit serve --reference` names it ("files:alameda.csv"); partial (a street they lack is "not checked")
    unless `complete` (`--complete`: the user vouches they hold every street of every ZIP they hold)."""
    from dqkit.engines.address import AddressEngine
    from dqkit.engines.address.provenance import ReferenceInfo

    covered = None if complete else frozenset[str]()
    if len(files) == 1 and files[0].suffix.lower() in INDEX_SUFFIXES:
        return AddressEngine.open(files[0], ReferenceInfo(f"index:{files[0].name}", source="index file",
                                                          complete_postcodes=covered))
    if any(f.suffix.lower() in INDEX_SUFFIXES for f in files):
        raise InputError("--reference: one index file alone, or OpenAddresses CSV files; not both")
    engine = AddressEngine.from_files(files, complete=complete)
    engine.reference = ReferenceInfo("files:" + "+".join(p.name for p in files), source="reference files",
                                     built=engine.reference.built, complete_postcodes=covered)
    return engine
