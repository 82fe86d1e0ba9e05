"""An analyst's own spoof list: whole names their lead sources are known to fake, answered E100 like the bundled
lists. The bundled lists hold what open data knows (see tests/lead_rules/README.md for what that catches on
names it has never seen); a team's own list of fakes closes the gap for its own sources.

One name a line, UTF-8; blank lines and lines starting with '#' are skipped. Matched as the bundled character
lists are: the whole name (first + last, first + middle + last, or FULL_NAME, "Last, First" in the comma's
order), case, accents, look-alike letters, spacing and doubled letters undone; never a part of a name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from dqkit.contract.errors import InputError
from dqkit.contract.lead import LeadRequest
from dqkit.engines.lead.spoof import LISTED, SpoofHit, lead_name_keys, list_key

MAX_NAMES = 1_000_000  # a list larger than this is not a list of names


@dataclass(frozen=True)
class SpoofList:
    """Whole names to answer E100 for. `source` names where they came from (shown in the answer's VALUE)."""

    keys: frozenset[str] = field(repr=False)
    source: str = "inline"
    fingerprint: str = ""

    @classmethod
    def of(cls, names: Iterable[str], source: str = "inline") -> SpoofList:
        keys: set[str] = set()
        for name in names:
            key = list_key(name)
            if len(key) >= 2:
                keys.add(key)
            if len(keys) > MAX_NAMES:
                raise InputError(f"spoof list {source}: more than {MAX_NAMES:,} names")
        digest = hashlib.blake2b("\n".join(sorted(keys)).encode(), digest_size=8).hexdigest()
        return cls(frozenset(keys), source, digest)

    @classmethod
    def from_file(cls, path: Path | str) -> SpoofList:
        """The names of a text file, one a line. A byte that is not UTF-8 is refused with its line number."""
        p = Path(path)
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise InputError(f"spoof list {p}: cannot be read ({exc.strerror or exc})") from None
        names: list[str] = []
        for number, raw in enumerate(data.splitlines(), 1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8").strip()
            except UnicodeDecodeError:
                raise InputError(f"spoof list {p}, line {number}: not UTF-8 text") from None
            if line and not line.startswith("#"):
                names.append(line)
        return cls.of(names, source=p.name)

    def __len__(self) -> int:
        return len(self.keys)

    def match(self, lead: LeadRequest) -> SpoofHit | None:
        """The hit when the lead's whole name is on the list."""
        for fields, value, key in lead_name_keys(lead):
            if key in self.keys:
                return SpoofHit(fields, value, LISTED, f"{key} (list {self.source})")
        return None
