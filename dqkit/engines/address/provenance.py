"""Where an address answer came from: the reference data behind an engine, named on every surface.

`ReferenceInfo` travels with an address engine; surfaces turn it into columns (`addr_reference`,
`addr_reference_date`, `addr_note`), a response header (`X-Dqkit-Reference`) and a line in reports. It is plain
data so that the engines layer never imports the reference-management package that writes manifests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

DEMO_ID: Final = "us-demo-synthetic"
OPEN_ONLY_ID: Final = "open-data-only"
NOTE_SYNTHETIC: Final = "synthetic demo data: these addresses are invented; do not trust a match"
NOTE_OPEN_ONLY: Final = "street not checked: no reference installed (only ZIP / city / state were checked)"
HOW_TO_ADD: Final = ("No address reference is installed, so dqkit checks only ZIP / city / state and never the "
                     "street: add one with `dqkit reference add <openaddresses-file.csv|.zip>` "
                     "(see `dqkit reference add --help`).")


@dataclass(frozen=True, slots=True)
class ReferenceInfo:
    """The facts about one reference that every answer should carry.

    id: the installed reference id ("openaddresses-us-ca"), DEMO_ID or OPEN_ONLY_ID; source: its kind
    ("openaddresses", "nad", "overture", "tabular", "demo", "open-data"); built / source_date: ISO dates ("" when
    unknown); synthetic: invented data (the demo).
    """

    id: str
    source: str = ""
    licence: str = ""
    attribution: str = ""
    country: str = ""
    region: str = ""
    rows: int = 0
    built: str = ""
    source_date: str = ""
    synthetic: bool = False
    street_checked: bool = True
    # postcodes it holds every street of (none unless the data or the user says so); None: all it holds
    complete_postcodes: frozenset[str] | None = frozenset()

    def covers_completely(self, postcode: str) -> bool:
        """Whether a street this reference lacks in `postcode` is missing there (not only from a partial list)."""
        return self.complete_postcodes is None or postcode in self.complete_postcodes

    @property
    def note(self) -> str:
        """What a user must know before trusting an answer from this reference ("" when nothing)."""
        if self.synthetic:
            return NOTE_SYNTHETIC
        if not self.street_checked:
            return NOTE_OPEN_ONLY
        return ""

    def header(self) -> str:
        """The value of the `X-Dqkit-Reference` response header."""
        text = f"{self.id}; built={self.built or 'unknown'}; source-date={self.source_date or 'unknown'}"
        if self.synthetic:
            text += "; synthetic"
        if not self.street_checked:
            text += "; street-not-checked"
        return text

    def line(self) -> str:
        """One readable line naming the reference (reports, `dqkit reference list`)."""
        where = "/".join(p for p in (self.country, self.region) if p)
        text = f"Reference: {self.id}"
        if self.source:
            text += f" ({self.source}{', ' + where if where else ''}"
            text += f", source date {self.source_date}" if self.source_date else ""
            text += f", built {self.built}" if self.built else ""
            text += ")"
        if self.note:
            text += f": {self.note}"
        return text


def demo_info(built: str = "") -> ReferenceInfo:
    return ReferenceInfo(DEMO_ID, source="demo", licence="synthetic (dqkit authors)", country="US", built=built,
                         synthetic=True, complete_postcodes=None)  # invented whole: its answers say so


def open_only_info() -> ReferenceInfo:
    return ReferenceInfo(OPEN_ONLY_ID, source="open-data", licence="zipcodes (MIT), USPS Publication 28",
                         country="US", street_checked=False)


def combined(infos: list[ReferenceInfo]) -> ReferenceInfo:
    """One ReferenceInfo naming several (ids joined with "+", the oldest source date, the newest build)."""
    if len(infos) == 1:
        return infos[0]
    return ReferenceInfo(
        "+".join(i.id for i in infos), source="+".join(dict.fromkeys(i.source for i in infos)),
        licence="; ".join(dict.fromkeys(i.licence for i in infos if i.licence)),
        country="+".join(dict.fromkeys(i.country for i in infos if i.country)),
        rows=sum(i.rows for i in infos), built=max((i.built for i in infos), default=""),
        source_date=min((i.source_date for i in infos if i.source_date), default=""),
        synthetic=any(i.synthetic for i in infos), street_checked=all(i.street_checked for i in infos),
        complete_postcodes=None if all(i.complete_postcodes is None for i in infos) else
        frozenset().union(*(i.complete_postcodes or () for i in infos)))
