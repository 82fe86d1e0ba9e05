"""Lines of a typed address that are not the address: a firm, "Attn:", "c/o", a department.

Business mail is written "Acme Inc, 2653 Meridian Ave, San Jose, CA 95124" or "Attn: Accounts Payable, ...". Read
as words of the street, those lines are stray words that no street explains, so the evidence check (rightly)
refuses every street. They are set aside before the address is read and handed back as what they are: the
organization of the answer (`components.organization`) and a line of its own above the street.

A line is set aside when it
* starts with an attention, care-of or department marker ("Attn", "ATTN:", "Attention", "c/o", "Care of", "Dept",
  "Department"), anywhere among the lines; or
* comes before the delivery line (the first line that starts with a house number and has a word after it) and is
  not itself part of the address (a unit line "Apt 4", "# 12", a PO box or rural route);
* within one line: a leading marker or words without digits ("Acme Inc 2653 Meridian Ave") up to the house
  number, when the line starts with neither a house number nor a unit, PO box or rural route.
A line that may be a city or a street is never guessed at: without a house number line, nothing is set aside.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from dqkit.contract.address import ValidationResult
from dqkit.contract.address_components import AddressComponents, OrganizationComponent
from dqkit.engines.address_index.tokens import is_unit_designator, tokens

_MARKER: Final = re.compile(
    r"^\s*(?:ATTN\b|ATTENTION\b|C\s*/\s*O\b|C\.O\.|CARE\s+OF\b|DEPT\b|DEPARTMENT\b|MAIL\s*STOP\b)[\s.:,-]*",
    re.IGNORECASE)
_ANY_MARKER: Final = re.compile(
    r"(?:^|[,\n;])\s*(?:ATTN|ATTENTION|C\s*/\s*O|C\.O\.|CARE\s+OF|DEPT|DEPARTMENT|MAIL\s*STOP)\b", re.IGNORECASE)
_ADDRESS_STARTS: Final = frozenset({"PO", "POB", "BOX", "RR", "HC", "PMB", "POST"})
_NUMBER: Final = re.compile(r"^\d+(?:[A-Z]|-\d+|-[A-Z]|\.\d)?$")


@dataclass(slots=True)
class Organization:
    """What was set aside: the firm (company) lines and the attention / care-of / department lines, as typed."""

    firms: list[str] = field(default_factory=list)
    attention: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.firms or self.attention)

    @property
    def line(self) -> str:
        """One line above the street, as the person wrote it."""
        return ", ".join([*self.firms, *self.attention])


def _delivery_line(seg: str) -> bool:
    toks = tokens(seg)
    return len(toks) >= 2 and bool(_NUMBER.match(toks[0])) and any(t[:1].isalpha() for t in toks[1:])


def _part_of_address(seg: str) -> bool:
    toks = tokens(seg)
    return not toks or is_unit_designator(toks[0]) or toks[0] in _ADDRESS_STARTS


def _unit_line(seg: str) -> bool:
    """"Dept 5" after the street: a unit (DEPT is a Publication 28 designator), not a department's name."""
    toks = tokens(seg)
    return len(toks) == 2 and is_unit_designator(toks[0]) and any(c.isdigit() for c in toks[1])


def _split_within(seg: str, org: Organization) -> str:
    """A firm or attention head of one line, up to the house number ("Attn Billing 12 Main St"): set aside."""
    m = _MARKER.match(seg)
    parts = seg.split()
    for i in range(1, len(parts)):
        rest = " ".join(parts[i:])
        if not _delivery_line(rest):
            continue
        head = " ".join(parts[:i]).strip(" ,")
        head_toks = tokens(head)
        if m is not None:
            org.attention.append(head)
            return rest
        if head_toks and not any(c.isdigit() for c in head) and not _part_of_address(head):
            org.firms.append(head)
            return rest
        return seg
    if m is not None:
        org.attention.append(seg.strip(" ,"))
        return ""
    return seg


def set_aside(parts: list[str]) -> tuple[list[str], Organization]:
    """The lines of `parts` (each also split at commas and line breaks) that are the address, and the
    organization lines set aside (see the module docstring)."""
    if parts and parts[0].lstrip()[:1].isdigit() and not any(_ANY_MARKER.search(p) for p in parts):
        return parts, Organization()  # the usual case, decided without splitting: the house number comes first
    segs = [s.strip() for p in parts for s in re.split(r"[,\n;]", p) if s.strip()]
    org = Organization()
    first = next((i for i, s in enumerate(segs) if _delivery_line(s)), -1)
    out: list[str] = []
    for i, s in enumerate(segs):
        if _MARKER.match(s) and not (first >= 0 and i > first and _unit_line(s)):
            rest = _split_within(s, org)
            if rest:
                out.append(rest)
        elif first < 0 and i == 0:
            out.append(_split_within(s, org))
        elif i < first and not _part_of_address(s):
            org.firms.append(s)
        else:
            out.append(s)
    if not org:
        return parts, org
    return out, org


def with_organization(result: ValidationResult, org: Organization) -> ValidationResult:
    """The answer with the set-aside lines where the published shapes put them: a line of its own above the
    street (when the answer has a street and a free line) and `components.organization` (kept only when the
    caller asks for components)."""
    a = result.address
    if a is not None and a.address_line_1 and not a.address_line_3:
        a.address_line_1, a.address_line_2, a.address_line_3 = org.line, a.address_line_1, a.address_line_2
    result.components = AddressComponents(organization=OrganizationComponent(
        company_name=", ".join(org.firms) or None, department_name=", ".join(org.attention) or None))
    return result
