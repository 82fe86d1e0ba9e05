"""`add`, `list_installed`, `info`, `remove`, and opening what is installed for the engines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from dqkit._warn import warn_user
from dqkit.contract.errors import InputError
from dqkit.reference import store
from dqkit.reference.install import SourceMeta, install, refusal
from dqkit.reference.sources.common import Part, locate_parts
from dqkit.reference.store import Manifest

if TYPE_CHECKING:
    from dqkit.engines.address.references import ReferenceSet

class ReferenceNote(UserWarning):
    """Something `add` read otherwise than the path said (a folder name that is no country, a file named after
    another county than its points): said, never silent."""


SourceKind = Literal["auto", "openaddresses", "nad", "overture", "tabular"]
SOURCES: tuple[str, ...] = ("auto", "openaddresses", "nad", "overture", "tabular")


def add(*inputs: str | Path, source: SourceKind = "auto", country: str | None = None, region: str | None = None,
        id: str | None = None, mapping: Sequence[str] | Mapping[str, str] | None = None,
        state: str | None = None, county: str | None = None,
        bbox: tuple[float, float, float, float] | None = None, release: str | None = None,
        endpoint: str | None = None, progress: bool | None = None, command: str = "", replace: bool = False,
        append: bool = False, partial: bool = False, complete: bool = False) -> list[Manifest]:
    """Import address data as installed references (one per source and region) and return their manifests.

    inputs:  files or folders (OpenAddresses CSV / GeoJSON lines / .gz / .zip bundles, a NAD .txt or .zip,
             Overture GeoParquet, any CSV / Parquet with `mapping`), or "s3" / an s3:// URL for Overture's release.
    source:  the kind of input ("auto" guesses from the files; a mapping means "tabular").
    country / region: two-letter codes (e.g. "US", "CA"). Without them, OpenAddresses and mapped files are
             placed by their rows (US ZIPs at their coordinates, a REGION column: `located`), the path only a hint
             (`nc/alameda.csv` is US/CA; a path read otherwise is said in a `ReferenceNote` warning); an option the
             rows contradict is refused, naming both.
    state / county: NAD filters; bbox (min lon, min lat, max lon, max lat), release, endpoint: Overture.
    id:      the reference id (default `<source>-<country>[-<region>][-<place>]`, the place being the county or
             city a single file is named after when its rows lie there, else the county they lie in:
             alameda.csv and santa_clara.csv get openaddresses-us-ca-alameda and openaddresses-us-ca-santa-clara).
             With an id, inputs of several regions (a national download) make one reference, each input a part.
    replace: build an installed reference of that id anew (without it, an installed id is refused);
    append:  add these inputs to the installed reference of that id, each replacing an installed input of the
             same name (and region); only the new inputs are read, the installed index is merged (`grow`);
    partial: the inputs are extracts (a sample, a box): no area counts as covered completely, so a street they
             lack is "not checked", never "not found".
    complete: the user vouches that the inputs hold every street of every ZIP they hold (then a street they lack
             there is "not found"). Without it or `partial`, coverage comes from the data (`coverage`): a county
             source of a kind published whole (OpenAddresses, NAD) covers the ZIPs of its county whose rows
             look whole; a sample or a slice covers nothing.

    Rows with no postcode, no or impossible coordinates, placeholder streets (FAKE ST, ANYTOWN) and exact
    duplicates are dropped and counted (`Manifest.dropped`). A failure leaves the installed references as they
    were; run it again to resume (finished inputs are kept).
    """
    if not inputs:
        raise InputError("give at least one input file (or \"s3\" for Overture's public release)")
    if id is not None:
        id = store.new_id(id)
    kind = _guess(inputs, source, mapping)
    command = command or "dqkit.reference.add(" + ", ".join(repr(str(i)) for i in inputs) + f", source={kind!r})"
    options: dict[str, Any] = {k: v for k, v in (("country", country), ("region", region), ("state", state),
                                                 ("county", county), ("bbox", list(bbox) if bbox else None),
                                                 ("release", release), ("mapping", _jsonable(mapping)))
                               if v}
    parts, meta = _parts(kind, inputs, country=country, region=region, mapping=mapping, state=state, county=county,
                         bbox=bbox, release=release, endpoint=endpoint)
    for note in locate_parts(parts, country=country, region=region):  # where the rows say they are
        warn_user(note, ReferenceNote)
    groups: dict[tuple[str, str], list[Part]] = {}
    for p in parts:
        groups.setdefault((p.iso2, p.region), []).append(p)
    countries = list(dict.fromkeys(iso2 for iso2, _ in groups))
    if id and len(countries) > 1:
        raise InputError(f"these inputs hold {len(countries)} countries ({', '.join(countries)}); leave out --id so "
                         "that each gets its own reference")
    if replace and append:
        raise InputError("--replace and --append contradict each other: choose one")
    if partial and complete:
        raise InputError("--partial and --complete contradict each other: choose one")
    if partial:
        options["partial"] = True
    if complete:
        options["complete"] = True
    # with --id, every region of the country is one reference (a national one: its states are its parts, each
    # replaced or removed on its own, see `grow`); without, one reference per region
    planned = [(id, list(parts))] if id else [(_default_id(kind, iso2, reg, group), group)
                                              for (iso2, reg), group in groups.items()]
    taken = {m.id for m in store.installed()}
    for ref_id, _ in planned:  # refused before anything is imported, not after the first region
        if ref_id in taken and not (replace or append):
            raise InputError(refusal(ref_id))
    out = []
    try:
        for ref_id, group in planned:
            out.append(install(group, ref_id, meta, command=command, options=options, progress=progress,
                               replace=replace, append=append, partial=partial, complete=complete))
    except OSError as exc:  # a full disk, a folder that cannot be written, an input that cannot be opened
        where = exc.filename or store.references_dir()
        raise InputError(f"{where}: {exc.strerror or exc}; the installed references are unchanged (finished "
                         "inputs are kept: run the same add again once this is fixed)") from None
    finally:
        _forget()
    return out


def _default_id(kind: str, iso2: str, region: str, group: Sequence[Part]) -> str:
    """`<source>-<country>[-<region>][-<place>]`: the place when every input of the group names the same one."""
    places = {p.place if p.id_place is None else p.id_place for p in group}
    place = places.pop() if len(places) == 1 else ""
    return store.new_id(store.ascii_id("-".join(x for x in (kind, iso2.lower(), region.lower(), place) if x)))


def _forget() -> None:
    from dqkit.backends.select import forget_local

    forget_local()


def _jsonable(mapping: Sequence[str] | Mapping[str, str] | None) -> Any:
    if mapping is None:
        return None
    return dict(mapping) if isinstance(mapping, Mapping) else list(mapping)


def _guess(inputs: Sequence[str | Path], source: str, mapping: object) -> str:
    if source not in SOURCES:
        raise InputError(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
    if source != "auto":
        return source
    if mapping:
        return "tabular"
    names = [str(i) for i in inputs]
    if any(n == "s3" or n.startswith("s3://") or n.lower().endswith((".parquet", ".geoparquet")) for n in names):
        return "overture"
    for n in names:
        p = Path(n)
        if p.is_dir() and any(p.rglob("*.parquet")):
            return "overture"
        if p.is_file() and p.suffix.lower() in (".txt",) and _nad_header(p):
            return "nad"
        if p.is_file() and p.suffix.lower() == ".zip" and _nad_zip(p):
            return "nad"
    return "openaddresses"


def _nad_header(p: Path) -> bool:
    try:
        with open(p, encoding="utf-8-sig", errors="replace") as f:
            head = f.readline(4096)
    except OSError:
        return False
    return "add_number" in head.lower() and "st_name" in head.lower()


def _nad_zip(p: Path) -> bool:
    import zipfile

    try:
        with zipfile.ZipFile(p) as zf:
            return any(i.filename.lower().endswith(".txt") and "nad" in i.filename.lower() for i in zf.infolist())
    except (zipfile.BadZipFile, OSError):
        return False


def _parts(kind: str, inputs: Sequence[str | Path], **kw: Any) -> tuple[list[Part], SourceMeta]:
    paths = [Path(i) for i in inputs]
    if kind == "openaddresses":
        from dqkit.reference.sources import openaddresses as oa

        return (oa.parts_of(paths, country=kw["country"], region=kw["region"]),
                SourceMeta(oa.KIND, oa.LICENCE, oa.ATTRIBUTION))
    if kind == "tabular":
        from dqkit.reference.sources import tabular

        if not kw["mapping"]:
            raise InputError("a CSV or Parquet of your own needs a column mapping: --map number=COL --map street=COL "
                             "...")
        return (tabular.parts_of(paths, tabular.parse_mapping(kw["mapping"]), country=kw["country"],
                                 region=kw["region"]),
                SourceMeta(tabular.KIND, "as given by its provider (imported with a column mapping)"))
    if kind == "nad":
        from dqkit.reference.sources import nad

        if kw["country"] and kw["country"].upper() != "US":
            raise InputError("the National Address Database covers the US only")
        return (nad.parts_of(paths, state=kw["state"] or kw["region"], county=kw["county"]),
                SourceMeta(nad.KIND, nad.LICENCE, nad.ATTRIBUTION))
    if kind == "overture":
        from dqkit.reference.sources import overture

        return (overture.parts_of([str(i) for i in inputs], country=kw["country"], region=kw["region"],
                                  bbox=kw["bbox"], release=kw["release"], endpoint=kw["endpoint"]),
                SourceMeta(overture.KIND, overture.LICENCE, overture.ATTRIBUTION))
    raise InputError(f"unknown source {kind!r}")


def list_installed() -> list[Manifest]:
    """The installed references, oldest first."""
    return store.installed()


def info(ref_id: str) -> Manifest:
    """The manifest of one installed reference."""
    return store.find(ref_id)


def remove(ref_id: str, *, part: str | Sequence[str] = (), region: str | Sequence[str] = (),
           progress: bool | None = None) -> Manifest:
    """Uninstall one reference, or discard an unfinished add (its id as `list` names it); returns its manifest.

    part / region: take only these inputs (a county file, by name as `info` lists it) or regions (states) out of
    it, leaving the rest installed and not read again; returns the new manifest."""
    parts = [part] if isinstance(part, str) else list(part)
    regions = [region] if isinstance(region, str) else list(region)
    try:
        if parts or regions:
            from dqkit.reference.install import remove_parts

            return remove_parts(ref_id, parts=parts, regions=regions, progress=progress,
                                command=f"dqkit.reference.remove({ref_id!r}, part={parts!r}, region={regions!r})")
        return store.remove(ref_id)
    finally:
        _forget()


def describe(backend: object = None) -> str:
    """One line naming the reference data behind address answers of `backend` (default: the local backend), for
    reports: "Reference: openaddresses-us-ca (openaddresses, US/CA, source date 2026-11-20, built 2026-11-24)"."""
    from dqkit.backends.select import address_backend

    be = address_backend(backend) if backend is None or isinstance(backend, str) else backend
    info = getattr(be, "reference", None)
    line = getattr(info, "line", None)
    if callable(line):
        return str(line())
    return f"Reference: as named by the service {getattr(be, 'name', type(be).__name__)}"


def open_installed(ids: Sequence[str] | None = None) -> ReferenceSet:
    """The installed references (all, or `ids`) as one engine; with none, the open-data-only engine."""
    from dqkit.engines.address import AddressEngine
    from dqkit.engines.address.references import ReferenceSet

    manifests = store.installed()
    if ids is not None:
        manifests = [store.find(i) for i in ids]
    return ReferenceSet([AddressEngine.open(m.index_path, m.info()) for m in manifests])

