"""Where installed references live and what their manifests say.

    <user data dir>/references/<id>/manifest.json   what it is (source, licence, region, rows, dates, command)
    <user data dir>/references/<id>/index.dqidx     the address index the engines open
    <user data dir>/references/.staging-<id>/       an add in progress (kept after a failure, to resume)

The user data dir is `platformdirs.user_data_dir("dqkit")`; `DQKIT_REFERENCE_DIR` overrides the whole
`references` folder (CI, tests). Directories are created 0700: a reference may hold addresses a user was given
under licence. A reference appears only by `rename` of a finished directory, so readers never see half of one.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Final

from dqkit._files import pid_alive
from dqkit.contract.errors import InputError, ReferenceDataError
from dqkit.engines.address.provenance import ReferenceInfo

ENV_DIR: Final = "DQKIT_REFERENCE_DIR"
MANIFEST: Final = "manifest.json"
INDEX: Final = "index.dqidx"
STAGING_PREFIX: Final = ".staging-"
MANIFEST_VERSION: Final = 1


def references_dir(create: bool = False) -> Path:
    """The folder holding the installed references (created 0700 when `create`)."""
    env = os.environ.get(ENV_DIR, "").strip()
    if env:
        path = Path(env).expanduser()
    else:
        import platformdirs

        path = Path(platformdirs.user_data_dir("dqkit", appauthor=False)) / "references"
    if create:
        make_private_dir(path)
    return path


def make_private_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        path.chmod(0o700)


@dataclass
class InputFile:
    """One input of a reference (a file, a zip member, a remote object) and how far its import got."""

    name: str
    size: int = 0
    mtime: float = 0.0
    rows_read: int = 0
    rows_kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)  # rows not served, by reason (`hygiene.REASONS`)
    place: str = ""  # the county or city its name says ("alameda"), "" when it says none
    region: str = ""  # the region (state) its rows are of, "" when several or unknown
    source: str = ""  # the kind of source ("openaddresses", "nad", ...): a reference may merge several
    source_date: str = ""  # the date of its data, as the source says
    complete_zips: list[str] | None = None  # ZIPs it covers completely (None: not recorded, before parts)
    duplicates: int = 0  # its rows not served as exact copies of its own rows

    @property
    def label(self) -> str:
        """How the index names this input's part: its name, with its region when it has one."""
        return f"{self.name}#{self.region}" if self.region else self.name


@dataclass
class Manifest:
    """What one installed reference is. Written as JSON beside its index."""

    id: str
    source: str
    country: str
    region: str = ""
    licence: str = ""
    attribution: str = ""
    rows: int = 0
    streets: int = 0
    built: str = ""
    source_date: str = ""
    command: str = ""
    synthetic: bool = False
    inputs: list[InputFile] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    index_bytes: int = 0
    dropped: dict[str, int] = field(default_factory=dict)  # rows not served, by reason (`hygiene.REASONS`)
    partial: bool = False  # the user said the inputs are extracts: no area is covered completely
    complete_zips: list[str] = field(default_factory=list)  # ZIPs every street of which is in the reference
    version: int = MANIFEST_VERSION

    @property
    def path(self) -> Path:
        return references_dir() / self.id

    @property
    def index_path(self) -> Path:
        return self.path / INDEX

    def info(self) -> ReferenceInfo:
        return ReferenceInfo(self.id, source=self.source, licence=self.licence, attribution=self.attribution,
                             country=self.country, region=self.region, rows=self.rows, built=self.built[:10],
                             source_date=self.source_date, synthetic=self.synthetic,
                             complete_postcodes=frozenset(() if self.partial else self.complete_zips))

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=False)

    @classmethod
    def from_json(cls, text: str, where: str) -> Manifest:
        try:
            raw = json.loads(text)
            known = {f.name for f in fields(cls)}
            data = {k: v for k, v in raw.items() if k in known}
            data["inputs"] = [InputFile(**i) for i in data.get("inputs", [])]
            return cls(**data)
        except (ValueError, TypeError, KeyError) as exc:
            raise ReferenceDataError(f"{where}: unreadable reference manifest ({exc})") from exc


def write_json_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def installed() -> list[Manifest]:
    """Every installed reference, oldest install first (a broken one is skipped, never fatal)."""
    base = references_dir()
    if not base.is_dir():
        return []
    out: list[Manifest] = []
    for d in base.iterdir():
        if d.name.startswith(".") or not (d / MANIFEST).is_file() or not (d / INDEX).is_file():
            continue
        try:
            out.append(Manifest.from_json((d / MANIFEST).read_text(encoding="utf-8"), str(d)))
        except (ReferenceDataError, OSError):
            continue
    return sorted(out, key=lambda m: (m.built, m.id))


def unfinished() -> list[str]:
    """Ids of adds that stopped before installing (their finished inputs are kept: run the add again)."""
    base = references_dir()
    if not base.is_dir():
        return []
    sweep_stale(base)
    return sorted(d.name[len(STAGING_PREFIX):] for d in base.iterdir() if d.name.startswith(STAGING_PREFIX))


_REMOVING: Final = re.compile(r"^\.removing-.+-(\d+)$")
_REPLACED: Final = re.compile(r"^\.replaced-.+-(\d+)-\d+$")


def sweep_stale(base: Path) -> None:
    """Folders a killed process left mid-remove or mid-replace (`.removing-<id>-<pid>`,
    `.replaced-<id>-<pid>-<time>`): removed once their process is gone (never one a live process still owns); and
    staging folders of adds killed before any input finished (nothing to resume; not while an add holds them)."""
    if not base.is_dir():
        return
    for d in base.iterdir():
        if _stale(d):
            shutil.rmtree(d, ignore_errors=True)


def _stale(d: Path) -> bool:
    m = _REMOVING.match(d.name) or _REPLACED.match(d.name)
    if m:
        return not pid_alive(int(m.group(1)))
    # a staging folder: only one a minute old (an add creates it a moment before it locks it), unlocked, empty
    return d.name.startswith(STAGING_PREFIX) and d.is_dir() and os.name != "nt" and \
        time.time() - d.stat().st_mtime > 60 and not any((d / "parts").glob("*.rec")) and not _locked(d / "lock")


def remove_unfinished(ref_id: str) -> Manifest:
    """Discard the staging folder of an add that stopped (`ref_id` or `.staging-<ref_id>`); refused while that add
    is still running. Returns what it held, as far as its progress file says."""
    name = ref_id.strip()
    ref_id = valid_id(name[len(STAGING_PREFIX):] if name.startswith(STAGING_PREFIX) else name)
    staging = references_dir() / f"{STAGING_PREFIX}{ref_id}"
    if not staging.is_dir():
        raise InputError(f"no unfinished add of {ref_id!r}")
    if _locked(staging / "lock"):
        raise InputError(f"an add of {ref_id!r} is running; wait for it to finish (or stop it) first")
    try:
        state = json.loads((staging / "progress.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        state = {}
    rows = sum(int(v.get("rows_kept", 0)) for v in state.values()) if isinstance(state, dict) else 0
    gone = staging.with_name(f".removing-{ref_id}-{os.getpid()}")
    os.rename(staging, gone)
    shutil.rmtree(gone, ignore_errors=True)
    return Manifest(id=ref_id, source="unfinished add", country="", rows=rows)


def _locked(lock: Path) -> bool:
    """Whether an add holds the staging lock right now."""
    try:
        import fcntl
    except ImportError:
        return False
    if not lock.exists():
        return False
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def find(ref_id: str) -> Manifest:
    """The installed reference `ref_id`; InputError naming the installed ones when there is none."""
    for m in installed():
        if m.id == ref_id:
            return m
    have = ", ".join(m.id for m in installed()) or "none"
    raise InputError(f"no installed reference {ref_id!r} (installed: {have}); see `dqkit reference list`")


def remove(ref_id: str) -> Manifest:
    """Uninstall `ref_id` (its directory leaves by one rename first, so a crash never leaves half of it); the id of
    an unfinished add (as `reference list` names it, or `.staging-<id>`) discards its staging folder."""
    if ref_id.strip().startswith(STAGING_PREFIX) or (
            not any(m.id == ref_id for m in installed()) and ref_id.strip().lower() in unfinished()):
        return remove_unfinished(ref_id)
    m = find(ref_id)
    gone = m.path.with_name(f".removing-{m.id}-{os.getpid()}")
    os.rename(m.path, gone)
    shutil.rmtree(gone, ignore_errors=True)
    return m


def install_dir(staged: Path, ref_id: str) -> Path:
    """Move a finished directory in as `ref_id`, replacing an older install of that id in two renames."""
    final = references_dir(create=True) / ref_id
    old: Path | None = None
    if final.exists():
        old = final.with_name(f".replaced-{ref_id}-{os.getpid()}-{int(time.time())}")
        os.rename(final, old)
    try:
        os.rename(staged, final)
    except OSError:
        if old is not None:
            os.rename(old, final)  # put the previous install back
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return final


def valid_id(ref_id: str) -> str:
    text = ref_id.strip().lower()
    if not text or not all(c.isalnum() or c in "-_." for c in text) or text.startswith("."):
        raise InputError(f"reference id {ref_id!r}: use letters, digits, '-', '_' and '.' (not starting with '.')")
    return text


MAX_ID_CHARS = 100


def new_id(ref_id: str) -> str:
    """The id of a reference being added: ASCII letters and digits, '-', '_' and '.' only, at most `MAX_ID_CHARS`.
    An id travels in every answer's `X-Dqkit-Reference` header and names a folder: `東京` made every API request of
    `dqkit serve` a 400 (issue 30). Ids installed before keep working (`valid_id`)."""
    text = valid_id(ref_id)
    if not text.isascii() or len(text) > MAX_ID_CHARS:
        raise InputError(f"reference id {ref_id[:120]!r}: use at most {MAX_ID_CHARS} ASCII letters, digits, '-', '_' "
                         "and '.' (it is sent in HTTP headers and names a folder)")
    return text


def ascii_id(text: str) -> str:
    """`text` folded to an id `new_id` takes: accents dropped (San José -> san-jose), anything else '-'."""
    import re
    import unicodedata

    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9_.-]", "-", folded)).strip("-.")[:MAX_ID_CHARS] or "reference"
