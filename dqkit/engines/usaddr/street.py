"""The parts of a delivery line in USPS Publication 28 form: the value both the standardizer and the
address-point index speak.

Every field is an upper-case string, "" when absent. `parse_street` (in `dqkit.engines.usaddr`) builds one from
free text; the reference index keys its points by `Street.name` so that the two sides agree on spelling.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Street:
    """Publication 28 parts of one delivery line (seed 000 section 2.3 names in comments).

    A street address fills number/predir/name/suffix/postdir and optionally unit_desig/unit.
    A PO box fills po_box ("PO BOX 12" -> po_box "12"). A rural route, highway contract or military unit fills
    rr_type ("RR", "HC", "PSC", "CMR" or "UNIT"), rr_num and rr_box ("RR 2 BOX 152", "PSC 802 BOX 74").
    `general_delivery` is True for "GENERAL DELIVERY".
    """

    number: str = ""  # PRIM_RANGE: "1200", "1200 1/2", "12-34", "N123W456"
    predir: str = ""  # PREDIR: N S E W NE NW SE SW
    name: str = ""  # PRIM_NAME: "MAIN", "MARTIN LUTHER KING JR", "1ST"
    suffix: str = ""  # SUFFIX: C1 abbreviation, "ST", "AVE"
    postdir: str = ""  # POSTDIR
    unit_desig: str = ""  # UNIT_DESIG: C2 abbreviation, "APT", "STE", "#"
    unit: str = ""  # SEC_RANGE: "4", "A", "101"
    po_box: str = ""  # PO_BOX_NUM
    rr_num: str = ""  # RR_NUM: route number ("2" of "RR 2")
    rr_box: str = ""  # RR_BOX_NUM: box number on the route ("152" of "RR 2 BOX 152")
    rr_type: str = ""  # "RR", "HC", or a military "PSC", "CMR", "UNIT"
    general_delivery: bool = False

    @property
    def street(self) -> str:
        """The street itself, without number or unit: "N MAIN ST"."""
        return " ".join(p for p in (self.predir, self.name, self.suffix, self.postdir) if p)

    @property
    def secondary(self) -> str:
        """The secondary unit: "APT 4", "# 101", "BSMT"; "" when none."""
        return " ".join(p for p in (self.unit_desig, self.unit) if p)

    @property
    def primary(self) -> str:
        """The delivery line without its secondary unit: "1200 N MAIN ST", "PO BOX 12", "RR 2 BOX 152"."""
        if self.po_box:
            return f"PO BOX {self.po_box}"
        if self.rr_type:
            head = f"{self.rr_type} {self.rr_num}".strip()
            return f"{head} BOX {self.rr_box}" if self.rr_box else head
        if self.general_delivery:
            return "GENERAL DELIVERY"
        return " ".join(p for p in (self.number, self.street) if p)

    @property
    def line(self) -> str:
        """The whole delivery line (STREET1), Pub 28 style with the unit on the same line:
        "1200 N MAIN ST APT 4"."""
        return " ".join(p for p in (self.primary, self.secondary) if p)

    @property
    def kind(self) -> str:
        """ADDRESS_TYPE letter this line implies: S street, P PO box, R rural route / highway contract,
        G general delivery, H highrise (a street address with a unit), "" when nothing was parsed.
        Military PSC/CMR/UNIT lines count as R (routes with boxes); F (firm) is decided by the caller."""
        if self.po_box:
            return "P"
        if self.rr_type:
            return "R"
        if self.general_delivery:
            return "G"
        if self.name or self.number:
            return "H" if self.unit_desig or self.unit else "S"
        return ""

    def __bool__(self) -> bool:
        return bool(self.primary or self.secondary)
