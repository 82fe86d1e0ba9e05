"""Parse one delivery line into Publication 28 parts, by rules over tokens (no model, no per-call setup).

The line is read in this order: a PO box, rural route / highway contract, military unit or general delivery form
at its start; else a street address: house number (with a fraction), then the secondary unit (a C2 designator or
"#" and its value, searched from the left), then in what stands before the unit: a pre-directional, the last
street suffix that leaves a clean tail, a post-directional, and the name between them. Whatever is left over
(text after the unit, words after a complete street, words before the house number) is extraneous: it is dropped
and reported (status 44), never guessed into the name.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Final

from dqkit.engines import deadline
from dqkit.engines.deadline import DeadlineExceeded
from dqkit.engines.usaddr.pub28 import (
    DIRECTIONALS,
    EXTRA_SUFFIX_VARIANTS,
    HIGHWAY_QUALIFIERS,
    HIGHWAY_WORDS,
    ORDINAL_WORDS,
    SUFFIX_WORDS,
    SUFFIXES,
    TENS_WORDS,
    UNITS,
    UNITS_WITHOUT_NUMBER,
)
from dqkit.engines.usaddr.street import Street
from dqkit.engines.usaddr.tokens import is_number_word, tokenize

_HOUSE_NUMBER: Final = re.compile(r"^(\d+[A-Z]?(-\d*[A-Z]?\d*)?|\d+-?[A-Z]{1,2}|[NSEW]\d+[NSEW]\d+)$")
_FRACTION: Final = re.compile(r"^\d/\d{1,2}$")
_ORDINAL: Final = re.compile(r"^(\d+)(ST|ND|RD|TH|D)$")
_VALUE: Final = re.compile(r"^[A-Z0-9][A-Z0-9/-]{0,9}$")
_BOX_WORDS: Final = frozenset({"BOX", "BX", "POBOX", "POB", "DRAWER", "CALLER", "LOCKBOX", "POBX"})
_PO_WORDS: Final = frozenset({"PO", "P", "O", "POST", "OFFICE", "POSTOFFICE", "FIRM"})
_RR_HEADS: Final = {("RR",): "RR", ("R", "R"): "RR", ("RURAL", "ROUTE"): "RR", ("RURAL", "RT"): "RR",
                    ("RURAL", "RTE"): "RR", ("RFD",): "RR", ("RD", "RT"): "RR", ("RT",): "RR",
                    ("ROUTE",): "RR", ("RTE",): "RR", ("HC",): "HC", ("HCR",): "HC",
                    ("HIGHWAY", "CONTRACT"): "HC", ("HWY", "CONTRACT"): "HC", ("STAR", "ROUTE"): "HC",
                    ("PSC",): "PSC", ("CMR",): "CMR", ("UNIT",): "UNIT"}
# Heads that only mean a route when a BOX follows ("ROUTE 66" alone is a street; "UNIT 4" alone a unit).
_RR_NEEDS_BOX: Final = frozenset({("RT",), ("ROUTE",), ("RTE",), ("UNIT",)})
_ORDINAL_ENDINGS: Final = {1: "ST", 2: "ND", 3: "RD"}
_NUMBER_WORDS: Final = {w: str(n) for n, w in enumerate(
    ["ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "ELEVEN", "TWELVE"])} | {
    w: str(n) for w, n in TENS_WORDS.items()}
_FLOOR_WORDS: Final = frozenset({"FLOOR", "FL", "FLR"})
_PLAIN_UNITS: Final = frozenset({"APT", "STE", "UNIT", "RM", "SPC", "#"})  # never part of a street name


def _c1_only(tok: str) -> bool:
    return tok in SUFFIXES and tok not in EXTRA_SUFFIX_VARIANTS


@dataclass(slots=True)
class ParsedLine:
    """A delivery line's parts plus what the parser had to do to get them."""

    street: Street
    extraneous: list[str] = field(default_factory=list)  # tokens dropped (status 44)
    nonstandard_box: bool = False  # PO box / route written in a non-standard form (status 05)

    @property
    def parsed(self) -> bool:
        """A deliverable-looking line: a street name, a PO box, a route or general delivery."""
        s = self.street
        return bool(s.name or s.po_box or s.rr_type or s.general_delivery)


def parse_street(text: str) -> Street:
    """Publication 28 parts of one delivery line ("1200 north main street apt 4" -> number 1200, predir N,
    name MAIN, suffix ST, unit_desig APT, unit 4). Never raises: text that holds no street gives `Street()`
    (or only the parts found)."""
    try:
        return parse_tokens([t for t in tokenize(text) if t != ","]).street
    except DeadlineExceeded:
        raise
    except Exception:  # a parser bug must not take a batch down; the caller sees an empty parse (status 57)
        return Street()


def parse_tokens(t: list[str]) -> ParsedLine:
    """Parse the tokens of one delivery line (no "," tokens). Linear in the number of tokens: no step copies or
    rescans the rest of the line per token."""
    deadline.check()
    t = [x for x in t if x not in {"(", ")"}]
    if not t:
        return ParsedLine(Street())
    special = _special_forms(t)
    if special is not None:
        return special
    extraneous: list[str] = []
    number = ""
    i = 0
    lead_unit: tuple[str, str] | None = None
    if t[0] in _NUMBER_WORDS and len(t) > 2 and (t[1] in DIRECTIONALS or t[2] in SUFFIXES):
        t = [_NUMBER_WORDS[t[0]], *t[1:]]  # "ONE S DEARBORN ST" -> "1 S DEARBORN ST"
    if _HOUSE_NUMBER.match(t[0]) and not _ORDINAL.match(t[0]) and len(t) > 1:
        number, i = t[0], 1
        if len(t) > 3 and len(t[1]) == 1 and t[1].isalpha() and t[1] not in DIRECTIONALS and t[2] in DIRECTIONALS:
            number, i = f"{t[0]} {t[1]}", 2  # "4922 B S CORNELL AVE": the B belongs to the number
    else:
        j = _late_number(t)
        if j > 0:
            lead_unit = as_unit(t[:j])
            if lead_unit is None:
                extraneous.extend(t[:j])
            number, i = t[j], j + 1
    if number and i < len(t) and _FRACTION.match(t[i]):
        number, i = f"{number} {t[i]}", i + 1
    if i == 0 and len(t) == 1 and _HOUSE_NUMBER.match(t[0]):
        return ParsedLine(Street(number=t[0]))
    predir, name, suffix, postdir, desig, unit, extra = _after_number(t[i:])
    extraneous.extend(extra)
    if lead_unit is not None and not desig:
        desig, unit = lead_unit
    return ParsedLine(
        Street(number=number, predir=predir, name=name, suffix=suffix, postdir=postdir, unit_desig=desig,
               unit=unit),
        extraneous,
    )


def parse_unit(text: str) -> tuple[str, str]:
    """(UNIT_DESIG, SEC_RANGE) of a secondary-unit text on its own ("# 101" -> ("#", "101"), "Apt 4" ->
    ("APT", "4"), "B" -> ("#", "B")); ("", "") when there is nothing."""
    toks = [x for x in tokenize(text) if x != ","]
    if not toks:
        return "", ""
    u = as_unit(toks)
    if u is not None:
        return u
    return "#", "".join(toks)[:10]


# ---- special forms -------------------------------------------------------------------------------------


def _special_forms(t: list[str]) -> ParsedLine | None:
    head = t[0]
    if head in _BOX_WORDS or head in _PO_WORDS:
        box = _po_box(t)
        if box is not None:
            return box
    if head in ("GENERAL", "GEN") and len(t) >= 2 and t[1] in ("DELIVERY", "DEL", "DELIV"):
        return ParsedLine(Street(general_delivery=True), t[2:], t[:2] != ["GENERAL", "DELIVERY"])
    return _route(t)


def _po_box(t: list[str]) -> ParsedLine | None:
    i, saw_box, saw_po = 0, False, False
    while i < len(t) and (t[i] in _BOX_WORDS or t[i] in _PO_WORDS):
        saw_box |= t[i] in _BOX_WORDS
        saw_po |= t[i] in ("PO", "P", "POST", "POSTOFFICE")
        i += 1
    if i < len(t) and (t[i] == "#" or is_number_word(t[i])):
        i += 1
    if not (saw_box or saw_po) or i >= len(t) or i == 0 or not _VALUE.match(t[i]):
        return None
    if not any(c.isdigit() for c in t[i]) and len(t[i]) > 2:
        return None  # "POST OFFICE DR", "BOX ELDER ST"
    if not saw_box and t[:i] not in (["PO"], ["P", "O"]):
        return None
    rest = t[i + 1 :]
    standard = t[:i] == ["PO", "BOX"]
    route = _route(rest) if rest else None
    if route is not None and route.street.rr_type in ("RR", "HC") and not route.street.rr_box:
        # "BOX 152 RR 2" -> "RR 2 BOX 152"
        s = route.street
        return ParsedLine(Street(rr_type=s.rr_type, rr_num=s.rr_num, rr_box=t[i]), route.extraneous, True)
    return ParsedLine(Street(po_box=t[i]), rest, not standard)


def _route(t: list[str]) -> ParsedLine | None:
    for n in (2, 1):
        key = tuple(t[:n])
        kind = _RR_HEADS.get(key)
        if kind is None or len(t) <= n:
            continue
        i = n
        if t[i] in ("#", "NO"):
            i += 1
        if i >= len(t) or not any(c.isdigit() for c in t[i]) or not _VALUE.match(t[i]):
            return None
        num = t[i]
        i += 1
        box = ""
        if i < len(t) and t[i] in ("BOX", "BX", "#", "POB"):
            i += 1
            if i < len(t) and t[i] == "#":
                i += 1
            if i < len(t) and _VALUE.match(t[i]):
                box = t[i]
                i += 1
        if key in _RR_NEEDS_BOX and not box:
            return None
        standard = key == (kind,) and (not box or t[n + 1] == "BOX")
        return ParsedLine(Street(rr_type=kind, rr_num=num, rr_box=box), t[i:], not standard)
    return None


# ---- street addresses ----------------------------------------------------------------------------------


def _late_number(t: list[str]) -> int:
    """Index of a house number that follows leading words ("APT 4 123 MAIN ST", "ATTN BILLING 12 OAK ST"),
    or 0 when the line does not look like that."""
    last_word = -1  # index of the last word (starts with a letter, not a unit designator)
    for k in range(len(t) - 1, 0, -1):
        if t[k][0].isalpha() and t[k] not in UNITS:
            last_word = k
            break
    for j in range(1, len(t) - 1):
        tok = t[j]
        if not (_HOUSE_NUMBER.match(tok) and not _ORDINAL.match(tok) and tok[0].isdigit()):
            continue
        prev = t[j - 1]
        if prev in HIGHWAY_WORDS or (prev in SUFFIXES and j == 1) or prev in HIGHWAY_QUALIFIERS:
            return 0  # "STATE HIGHWAY 1 N", "AVENUE 5 E": the number belongs to the name
        if (prev in UNITS or prev == "#" or is_number_word(prev)) and j == 1:
            continue  # "APT 4 ..." : the 4 is the unit's value, keep looking
        if last_word > j:  # a word follows the number
            return j
    return 0


def as_unit(t: list[str]) -> tuple[str, str] | None:
    """(designator, value) when `t` is exactly a secondary unit."""
    if not t:
        return None
    head = t[0]
    desig = "#" if head == "#" or is_number_word(head) else UNITS.get(head, "")
    if not desig:
        return None
    rest = [x for x in t[1:] if x != "#"]
    if not rest:
        return (desig, "") if desig in UNITS_WITHOUT_NUMBER else None
    if all(_VALUE.match(x) and len(x) <= 4 for x in rest):
        return desig, "".join(rest)[:10]
    return None


def _is_value(tok: str) -> bool:
    return bool(_VALUE.match(tok)) and (len(tok) == 1 or any(c.isdigit() for c in tok))


def _find_unit(r: list[str], start: int) -> tuple[int, str, str, int]:
    """(index, designator, value, index after) of the first secondary unit at or after `start`;
    index -1 when none."""
    for u in range(start, len(r)):
        tok = r[u]
        nxt = r[u + 1] if u + 1 < len(r) else ""
        if nxt in _FLOOR_WORDS and u >= 1 and (tok in ORDINAL_WORDS or _ORDINAL.match(tok)):
            n = ORDINAL_WORDS[tok] if tok in ORDINAL_WORDS else int(_ORDINAL.match(tok).group(1))  # type: ignore[union-attr]
            return u, "FL", str(n), u + 2  # "15TH FLOOR" -> "FL 15"
        if tok == "#" or (is_number_word(tok) and nxt and any(c.isdigit() for c in nxt)):
            if nxt and _VALUE.match(nxt):
                return u, "#", nxt, u + 2
            continue
        std = UNITS.get(tok)
        if std is None:
            continue
        k = u + 1
        if nxt == "#" or (nxt and is_number_word(nxt)):
            k += 1
        val = r[k] if k < len(r) else ""
        if val and _is_value(val) and val not in DIRECTIONALS:
            return u, std, val, k + 1
        if (val and k == len(r) - 1 and std not in UNITS_WITHOUT_NUMBER and len(val) <= 3 and val.isalpha()
                and ((val not in SUFFIXES and val not in DIRECTIONALS) or std in _PLAIN_UNITS)):
            return u, std, val, k + 1  # "APT MD", "STE ABC" at the end of the line
        if std in UNITS_WITHOUT_NUMBER and (not val or val in UNITS or val == "#"):
            return u, std, "", u + 1
    return -1, "", "", -1


def _after_number(r: list[str], nested: bool = False) -> tuple[str, str, str, str, str, str, list[str]]:
    """(predir, name, suffix, postdir, unit_desig, unit, extraneous) of the tokens after the house number."""
    predir, name, suffix, postdir, desig, unit, extra = _after_number_of(tuple(r), nested)
    return predir, name, suffix, postdir, desig, unit, list(extra)


@functools.lru_cache(maxsize=16384)
def _after_number_of(r: tuple[str, ...], nested: bool) -> tuple[str, str, str, str, str, str, tuple[str, ...]]:
    """`_after_number`, cached on the tokens it reads (a pure function of them and the Publication 28 tables):
    the same street comes with a new house number on every lead of a file, and this was a third of parsing it."""
    predir, name, suffix, postdir, desig, unit, extra = _after_number_uncached(list(r), nested)
    return predir, name, suffix, postdir, desig, unit, tuple(extra)


def _after_number_uncached(r: list[str], nested: bool) -> tuple[str, str, str, str, str, str, list[str]]:
    extraneous: list[str] = []
    if not r:
        return "", "", "", "", "", "", extraneous
    lead = _find_unit(r, 0) if (r[0] in UNITS or r[0] == "#") and not nested else (-1, "", "", -1)
    if lead[0] == 0 and lead[2] and len(r) > lead[3]:
        # "6910 # G MARY CAROLINE CIR": the unit stands before the street (once: "# 1 # 2 # 3 ..." never recurses)
        res = _after_number(r[lead[3] :], nested=True)
        if not res[4]:
            return (*res[:4], lead[1], lead[2].lstrip("#-"), res[6])
    start = 2 if r[0] in DIRECTIONALS and len(r) > 2 else 1
    u, desig, unit, after = _find_unit(r, start)
    if u >= 0:
        s = r[:u]
        tail = r[after:]
        # a second unit after the first ("BLDG 2 APT 4"): keep the inner one, drop the outer
        u2, d2, v2, a2 = _find_unit(tail, 0)
        if u2 == 0:
            extraneous.extend((desig, unit))
            desig, unit, tail = d2, v2, tail[a2:]
        extraneous.extend(tail)
    else:
        s = r
    predir = ""
    if len(s) >= 2 and s[0] in DIRECTIONALS:
        predir, s = s[0], s[1:]
    hw = _highway(s)
    suffix = postdir = ""
    if hw is not None:
        name, rest = hw
        if rest and rest[0] in DIRECTIONALS:
            postdir, rest = rest[0], rest[1:]
        if rest and not desig and len(rest) == 1 and _is_value(rest[0]):
            desig, unit, rest = "#", rest[0], []
        extraneous.extend(rest)
    else:
        k, tail = _suffix_at(s)
        if k >= 0:
            suffix, name_toks = s[k], s[:k]
            if tail and tail[0] in DIRECTIONALS and (len(tail) == 1 or not _is_value(tail[0]) or
                                                     len(tail) == 2):
                postdir, tail = tail[0], tail[1:]
            if tail and not desig and len(tail) <= 2 and all(_is_value(x) for x in tail):
                desig, unit, tail = "#", "".join(tail), []
            extraneous.extend(tail)
        else:
            name_toks = s
            if (not desig and len(name_toks) >= 2 and _is_value(name_toks[-1]) and name_toks[-1][0].isdigit()
                    and not _ORDINAL.match(name_toks[-1]) and name_toks[-2] not in SUFFIXES
                    and name_toks[-2] not in UNITS):
                desig, unit, name_toks = "#", name_toks[-1], name_toks[:-1]
            if (len(name_toks) >= 2 and name_toks[-1] in DIRECTIONALS
                    and not (len(name_toks) == 2 and name_toks[0] in SUFFIXES and not predir)):
                postdir, name_toks = name_toks[-1], name_toks[:-1]
        if predir and not suffix and len(name_toks) == 1 and name_toks[0] in SUFFIXES:
            name_toks, suffix, predir = [predir], name_toks[0], ""  # "E ST NW": E is the name
        if not name_toks:
            if predir and suffix:  # "N ST", "NORTH AVE": the directional is the name
                name_toks, predir = [predir], ""
            elif suffix:
                name_toks, suffix = [suffix], ""
            elif postdir:
                name_toks, postdir = [postdir], ""
        name = _name(name_toks)
        suffix = SUFFIXES.get(suffix, suffix)
    return (DIRECTIONALS.get(predir, predir), name, suffix, DIRECTIONALS.get(postdir, postdir), desig,
            unit.lstrip("#-"), extraneous)


def _suffix_at(s: list[str]) -> tuple[int, list[str]]:
    """(index, tail) of the street suffix in `s`: the last suffix word after the first token whose tail is
    clean (empty, a directional, a unit value); else the last C1 suffix with a dirty tail (the tail is
    extraneous text); (-1, []) when none."""
    dirty = -1
    suffix_after = False  # a suffix word stands right of k (the scan goes right to left)
    n = len(s)
    for k in range(n - 1, 0, -1):
        tok = s[k]
        if tok not in SUFFIXES:
            continue
        if k == n - 1 or (n - k - 1 <= 2 and all(x in DIRECTIONALS or _is_value(x) for x in s[k + 1 :])):
            return k, s[k + 1 :]
        if dirty < 0 and _c1_only(tok) and not suffix_after:
            dirty = k
        suffix_after = True
    if dirty >= 0:
        return dirty, s[dirty + 1 :]
    return -1, []


def _highway(s: list[str]) -> tuple[str, list[str]] | None:
    """("STATE HIGHWAY 1", rest) when `s` starts with a numbered highway or county road."""
    i = 0
    quals: list[str] = []
    while i < len(s) and s[i] in HIGHWAY_QUALIFIERS and i < 2:
        quals.append(s[i])
        i += 1
    if i >= len(s):
        return None
    tok = s[i]
    word = HIGHWAY_WORDS.get(tok)
    if quals and quals[-1] in ("COUNTY", "STATE", "TOWNSHIP", "FOREST") and tok in ("RD", "ROAD"):
        word = "ROAD"
    if word is None:
        if tok.startswith(("I-", "US-", "SR-", "CR-", "HWY-")) and "-" in tok:
            head, _, num = tok.partition("-")
            if num and num[0].isdigit() and head in HIGHWAY_WORDS:
                return " ".join([*quals, HIGHWAY_WORDS[head], num]), s[i + 1 :]
        return None
    if i + 2 < len(s) and (s[i + 1] == "#" or is_number_word(s[i + 1])) and s[i + 2][0].isdigit():
        s = [*s[: i + 1], *s[i + 2 :]]  # "HIGHWAY NO 33"
    if i + 1 >= len(s) or not s[i + 1][0].isdigit():
        return None
    if quals and quals[-1] == "US" and word == "US HIGHWAY":
        quals = quals[:-1]
    if quals and quals[-1] in ("US", "U S") and word == "HIGHWAY":
        quals, word = quals[:-1], "US HIGHWAY"
    parts = [*quals, word, s[i + 1]]
    rest = s[i + 2 :]
    if rest and len(rest[0]) == 1 and rest[0] not in DIRECTIONALS and rest[0].isalpha():
        parts[-1] += rest[0]
        rest = rest[1:]
    return " ".join(parts), rest


def _name(toks: list[str]) -> str:
    """The name's tokens with ordinals made numeric ("TWENTY FIRST" -> "21ST", "2D" -> "2ND") and a leading
    suffix abbreviation spelled out when a letter or number follows ("AVE B" -> "AVENUE B")."""
    out: list[str] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if "-" in tok and tok.replace("-", "").isalpha():
            a, _, b = tok.partition("-")
            if a in TENS_WORDS and b in ORDINAL_WORDS:
                out.append(_ordinal(TENS_WORDS[a] + ORDINAL_WORDS[b]))
                i += 1
                continue
        if tok in TENS_WORDS and i + 1 < len(toks) and toks[i + 1] in ORDINAL_WORDS:
            out.append(_ordinal(TENS_WORDS[tok] + ORDINAL_WORDS[toks[i + 1]]))
            i += 2
            continue
        if tok in ORDINAL_WORDS:
            out.append(_ordinal(ORDINAL_WORDS[tok]))
        elif (m := _ORDINAL.match(tok)) is not None:
            out.append(_ordinal(int(m.group(1))))
        else:
            out.append(tok)
        i += 1
    if len(out) == 2 and out[0] in SUFFIXES and out[0] != "ST" and _is_value(out[1]):
        out[0] = SUFFIX_WORDS.get(SUFFIXES[out[0]], out[0])
    return " ".join(out)


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}TH"
    return f"{n}{_ORDINAL_ENDINGS.get(n % 10, 'TH')}"
