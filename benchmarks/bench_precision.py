"""Precision of validate on real OpenAddresses points: how often is a confident answer wrong? (issue 10, part 4)

    .venv/bin/python benchmarks/bench_precision.py [--shared ../shared] [--seeds 10,11,13,99] [--fresh 4]
                                                   [--seed N] [--typos 1000] [--new N] [--limit N] [--no-peer]
                                                   [--examples] [--golden [--complete]]

Every run covers at least 8 seeds (issue 28, part 4): the fixed ones and `--fresh` drawn afresh from the system's
randomness (printed first, so a run can be repeated with `--seeds`); it prints one table of every corpus and seed,
names the worst seed (most confident wrong answers, then the lowest mean share right) and prints its full table.
`--seed N` runs one seed (with the peer). `--golden` runs the frozen hand-typed set of tests/address/golden instead.

For each county sample of `shared/data/openaddresses/` (alameda, santa_clara, portland_metro: Portland has no
CITY values, its city comes from the ZIP as the reference build fills it), rows with a house number, a street and
a ZIP are split with a fixed seed: 80% build the reference (a real `dqkit` index), 20% are held out. Queries are
typed the way a person writes an address, "NUMBER STREET UNIT, CITY, ST ZIP", and sent to `validate`:

(a) held-out: the held-out rows as they are: real addresses the reference lacks (unless another row of the
    reference has the same street, number and ZIP, e.g. another unit of the building);
(b) made-up: the held-out rows with the street replaced by a made-up name (a seeded syllable generator, plus a
    real suffix and sometimes a direction), checked not to equal any street name of the reference;
(c) typos: reference rows with one or two seeded typos (substitution, deletion, transposition or insertion) in
    the street name and / or the city. A word gets a typo only when it has 4 letters or more and a second one only
    when it has 8 or more (shorter words cannot be repaired from evidence: a 3-letter name one edit away is another
    name). The typed name is checked not to be another street of the same ZIP.
(d) made-up on reference numbers: reference rows with the street replaced by a made-up name (the harder case of
    the project's precision probe: the number, city and ZIP are those of a real address of the reference);
(e) one typo (swap, drop, add, replace) in any word of the street part of a reference row: name words (three
    letters: a swap only), suffix, direction, unit designator (never making another valid form or a one-letter
    word), ordinals (the letters only); issue 18;
(f) a firm, attention, care-of, department or building line before the street (its own component, or the same
    line) or an attention line after it;
(g) a reference row typed with a unit its building does not list (the building lists one or several): the right
    answer is Premises partial with the building, never another unit ("(g) answers naming another unit");
(h) house numbers written another way: a form the reference holds ("2653 1/2" for 2653.5, "4208L" for 4208-L),
    or a letter / half the reference lacks ("2653A", "2653 1/2" where only 2653 exists: not the plain number);
(i) the placeholder rows of the county files ("123 FAKE ST, ANYTOWN"), kept in the reference CSV as the county
    file has them, typed four ways: nothing may confirm them. "(i) junk, reference add" builds the reference as
    `dqkit reference add` and `build_index` do; "(i) junk, --reference FILE" as `dqkit serve --reference` and
    `AddressEngine.from_files` build it (both drop the junk rows);
(k) a valid suffix the name does not have in the city, where the name with the house number exists under one
    form in the ZIP ("1906 Doolittle Ave" for 1906 DOOLITTLE DR): right is a confident answer (Verified match or
    Interaction required) for the row's address with `street_corrected` set (the vendors correct it and say so);
(l) a direction left out or wrong where the street exists both with and without one in the ZIP ("752 Sunset Blvd"
    with SUNSET BLVD and W SUNSET BLVD in 94541, 752 on W SUNSET BLVD only), or the plain street's number typed
    with the other street's direction: two real readings, so any confident answer is wrong (a switch; "silent"
    when `street_corrected` is not set) and anything below it is right;
(m) a direction left out (70%) or wrong (30%) where the name has that one form in the whole city: right is a
    confident answer for the row's address with `street_corrected` set;
(n) the ZIP with one digit changed, the city typed (never a ZIP holding a street of that name): right is a
    confident answer for the row's address with `zip_code_corrected` set;
(K), (M) the queries of (k) and (m) against the same points vouched for as every street of their ZIPs (built
    with `complete=True`, as `--complete` does). A typed suffix or direction is corrected into a Verified match
    only where the reference holds every street of the locality, (K), (M); from the sample (its absence from a
    sample is weak evidence: 1511 MONTEVAL LN and PL are both real) the (k) queries and the wrong directions of (m)
    are corrected less sure, Interaction required, flagged (issue 28 part 1, session 3), which this bench counts
    as confident: so a real street the sample lacks, typed exactly, corrected into its same-number twin (a held-out
    MONTEVAL LN row of (a)) is a confident wrong answer of (a);
and an over-caution table: reference rows typed eight ordinary ways (lower case, spelled-out suffixes, ZIP only,
city only, ZIP+4, periods, split components, a neighbouring ZIP of the same city): the share answered Verified match
with the row's address.

The truth T of a query is its row: (street as the reference normalizes it, house number, ZIP). An answer is RIGHT
when what it asserts is what the reference supports:
  * T in the reference (same street, number and ZIP): Verified match / Interaction required with T (in (c) also
    the same unit when the row has one), or Premises partial with T's building when the row names no unit or a
    unit the reference lacks;
  * else T's street in the reference in T's ZIP or in another ZIP of T's city: Street partial on that street;
  * else (the street is not in T's ZIP, always so in (b) and (d)): Verified place or No matches (nothing claimed
    about a street).
Anything else is wrong (Multiple matches included: it claims no address, so it is never confident wrong either).
In (c), (e) to (h), (k), (m), (n) and the over-caution rows a confident answer must also name the row's unit.
"silent": a confident answer whose street or ZIP change carries no flag.
The worst case, a CONFIDENT WRONG answer, is Verified match or Interaction required with another street, number or
ZIP than T (or with any address when T is not in the reference). Targets: confident wrong <= 1% on (a), (b) and
(d), right >= 97% on (c). In (b) and (d) T's street is nobody's, so only Verified place or No matches are right.

The same texts also go to a Singleline search: "search verified wrong" counts its Verified match answers whose
first suggestion is another address than T (of all its Verified match answers).

Peer, same queries and reference, same run: rapidfuzz `process.extractOne` of the query over the reference rows'
full address strings (`fuzz.ratio`, default processor, score cut-off 90): a hit is its confident answer (right
when it is T and T is in the reference); no hit is right when T is not in the reference.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from rapidfuzz.distance import OSA

from dqkit.contract.address import Components, Confidence, SearchRequest, SearchType
from dqkit.engines import zipdata
from dqkit.engines.address import AddressEngine
from dqkit.engines.address.evidence import typo_budget
from dqkit.engines.address_index import build_index
from dqkit.engines.address_index.reader import Record, read_records, source_of
from dqkit.engines.usaddr.pub28 import DIRECTIONAL_WORDS, DIRECTIONALS, SUFFIX_WORDS, UNITS
from dqkit.engines.usaddr.pub28 import SUFFIXES as PUB28_SUFFIXES

REPO = Path(__file__).resolve().parent.parent
COUNTIES: dict[str, str] = {"alameda": "CA", "santa_clara": "CA", "portland_metro": "OR"}
CONFIDENT = frozenset({Confidence.VERIFIED_MATCH.value, Confidence.INTERACTION_REQUIRED.value})
CORPORA = ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "K", "M")
CORPUS_NAMES = {"a": "(a) held-out real", "b": "(b) made-up street", "c": "(c) 1-2 typos",
                "d": "(d) made-up, ref number", "e": "(e) 1 typo, any word", "f": "(f) firm / attn / c/o",
                "g": "(g) unlisted unit", "h": "(h) number forms", "i": "(i) junk, reference add",
                "j": "(i) junk, --reference FILE", "k": "(k) valid wrong suffix", "l": "(l) dir., both streets",
                "m": "(m) dir. missing/wrong", "n": "(n) ZIP off by a digit",
                "K": "(k), ref. vouched whole", "M": "(m), ref. vouched whole"}
WAYS = ("lower case", "spelled-out suffix", "ZIP only", "city only", "ZIP+4", "periods", "split components",
        "neighbouring ZIP")
SYLLABLES = ["bra", "ven", "tol", "mis", "quo", "dar", "fen", "lup", "ski", "rho", "zan", "pel", "gor", "tum",
             "wex", "lin", "ca", "do", "ri", "mo", "sel", "har", "nob", "vik", "yel", "ost", "ur", "ep", "al"]
SUFFIXES = ["St", "Ave", "Way", "Ct", "Dr", "Rd", "Ln", "Pl", "Blvd", "Cir", "Ter"]
DIRECTIONS = ["N", "S", "E", "W"]
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
PEER_CUTOFF = 90.0


@dataclass(frozen=True, slots=True)
class Row:
    """One address of a county file: the text a person types and the truth the reference would hold."""

    id: str
    number: str
    street_raw: str
    unit_raw: str
    city: str
    state: str
    zip5: str
    street: str  # as the reference normalizes it ("SANTA CLARA AVE")
    name: str  # the street name alone ("SANTA CLARA")
    unit: str  # normalized unit value ("4B"), "" when none
    predir: str = ""
    suffix: str = ""
    postdir: str = ""

    def text(self, street: str | None = None, city: str | None = None) -> str:
        unit = f" {self.unit_raw}" if self.unit_raw else ""
        return f"{self.number} {street if street is not None else self.street_raw}{unit}, " \
               f"{city if city is not None else self.city}, {self.state} {self.zip5}"

    @property
    def truth(self) -> tuple[str, str, str]:
        return self.street, self.number, self.zip5


@dataclass(slots=True)
class Query:
    text: str
    row: Row
    corpus: str  # a..i, or "o" for the over-caution table
    parts: tuple[str, ...] = ()  # the components as separate lines (else `text` is the one line)
    way: str = ""  # over-caution: how the clean row was typed
    expect: str = ""  # "not-confident": no confident answer is right (two real readings); "" the row's truth
    flag: str = ""  # the validation_detail flag a right answer sets (a correction is always flagged)


@dataclass(slots=True)
class Tally:
    """Per corpus: per confidence value, how many answers and how many right; confident wrong answers."""

    count: Counter[str] = field(default_factory=Counter)
    right: Counter[str] = field(default_factory=Counter)
    confident_wrong: int = 0
    n: int = 0
    examples: list[str] = field(default_factory=list)
    peer_right: int = 0
    peer_confident: int = 0
    peer_confident_wrong: int = 0
    search_verified: int = 0
    search_verified_wrong: int = 0
    other_unit: int = 0  # answers naming a unit of the building other than the typed one
    verified_right: int = 0  # Verified match with the row's address (the over-caution share)
    silent: int = 0  # confident answers with a street or ZIP change and no flag saying so (see `Judged.silent`)
    twin: int = 0  # of `confident_wrong`: a real street the reference lacks corrected into its same-number twin

    def add(self, other: Tally) -> None:
        self.silent += other.silent
        self.twin += other.twin
        self.other_unit += other.other_unit
        self.verified_right += other.verified_right
        self.count.update(other.count)
        self.right.update(other.right)
        self.confident_wrong += other.confident_wrong
        self.n += other.n
        self.examples += other.examples[: max(0, 8 - len(self.examples))]
        self.peer_right += other.peer_right
        self.peer_confident += other.peer_confident
        self.peer_confident_wrong += other.peer_confident_wrong
        self.search_verified += other.search_verified
        self.search_verified_wrong += other.search_verified_wrong

    @property
    def right_total(self) -> int:
        return sum(self.right.values())


def _ukey(unit: str) -> str:
    return "".join(c for c in unit.upper() if c.isalnum()).lstrip("0")


def load_rows(csv_path: Path, state: str, work: Path) -> tuple[list[Row], list[dict[str, str]], list[str]]:
    """Rows of a county file that are addresses (number, street, ZIP), normalized the way the reference build
    normalizes them (the build's own reader is run on the rows, each given a unique id)."""
    with open(csv_path, newline="") as f:
        reader = csv.DictReader(f)
        header = list(reader.fieldnames or [])
        raw = [r for r in reader if r["NUMBER"].strip()[:1].isdigit() and r["STREET"].strip()
               and r["POSTCODE"].strip()[:5].isdigit()]
    if "ID" not in header:
        header.append("ID")
    for i, r in enumerate(raw):
        r["ID"] = f"{csv_path.stem}-{i}"
    tmp = work / f"{csv_path.stem}-all.csv"
    write_csv(tmp, header, raw)
    recs: dict[str, Record] = {r.source_id: r for r in read_records(source_of(tmp, "US"))}
    rows: list[Row] = []
    kept: list[dict[str, str]] = []
    for r in raw:
        rec = recs.get(r["ID"])
        if rec is None:
            continue
        zip5 = r["POSTCODE"].strip()[:5]
        city = r.get("CITY", "").strip()
        if not city:
            info = zipdata.zip_info(zip5)
            city = info.city if info else ""
        street = " ".join(p for p in (rec.predir, rec.name, rec.suffix, rec.postdir) if p)
        rows.append(Row(r["ID"], rec.number, r["STREET"].strip(), r["UNIT"].strip(), city, state, zip5, street,
                        rec.name, _ukey(rec.unit), rec.predir, rec.suffix, rec.postdir))
        kept.append(r)
    return rows, kept, header


def write_csv(path: Path, header: list[str], rows: Iterable[dict[str, str]]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def made_up_name(rng: random.Random, taken: set[str], near: set[str] | frozenset[str] = frozenset()) -> str:
    """A syllable name no street has, and not within a typo of a street of `near` (its ZIP's names): "Rhoca" beside
    RHODA AVE is a typo of it by every measure, not a made-up street (issue 28: it was counted confident wrong)."""
    while True:
        name = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 3, 3)))).capitalize()
        up = name.upper()
        if len(name) >= 5 and up not in taken and not any(
                OSA.distance(up, n, score_cutoff=typo_budget(up, n)) <= typo_budget(up, n) and typo_budget(up, n)
                for n in near):
            return name


def typo(word: str, rng: random.Random) -> str:
    """One seeded typo: substitution, deletion, transposition of two neighbours, or insertion."""
    i = rng.randrange(len(word))
    op = rng.choice(("sub", "del", "swap", "ins"))
    if op == "sub":
        return word[:i] + rng.choice([c for c in LETTERS if c != word[i]]) + word[i + 1:]
    if op == "del":
        return word[:i] + word[i + 1:]
    if op == "swap":
        j = min(i, len(word) - 2)
        if word[j] == word[j + 1]:
            return typo(word, rng)
        return word[:j] + word[j + 1] + word[j] + word[j + 2:]
    return word[:i] + rng.choice(LETTERS) + word[i:]


def with_typos(row: Row, rng: random.Random, names_in_zip: set[str]) -> str | None:
    """The row's text with one or two typos in its street name and / or city; None when no word can take one."""
    street_words = row.street_raw.upper().split()
    name_words = set(row.name.split())
    s_idx = [i for i, w in enumerate(street_words) if w in name_words and w.isalpha() and len(w) >= 4]
    city_words = row.city.upper().split()
    c_idx = [i for i, w in enumerate(city_words) if w.isalpha() and len(w) >= 4]
    want = rng.choice((1, 2))
    for _ in range(20):
        sw, cw = list(street_words), list(city_words)
        budget: dict[tuple[str, int], int] = {}
        done = 0
        for _k in range(want):
            targets = [("s", i) for i in s_idx] + [("c", i) for i in c_idx]
            targets = [t for t in targets if budget.get(t, 0) < (
                2 if len((street_words if t[0] == "s" else city_words)[t[1]]) >= 8 else 1)]
            if not targets:
                break
            t = rng.choice(targets)
            words = sw if t[0] == "s" else cw
            words[t[1]] = typo(words[t[1]], rng)
            budget[t] = budget.get(t, 0) + 1
            done += 1
        if not done:
            return None
        new_name = " ".join(w for i, w in enumerate(sw) if i in s_idx or street_words[i] in name_words)
        if sw != street_words and new_name in names_in_zip:
            continue  # the typo made another real street of this ZIP: not a typo to repair
        return row.text(" ".join(sw), " ".join(cw))
    return None


def make_queries(rows: list[Row], seed: int, n_typos: int) -> tuple[list[Row], list[Query]]:
    """Split 80 / 20 and write the three corpora (see the module docstring)."""
    rng = random.Random(seed)
    order = list(range(len(rows)))
    rng.shuffle(order)
    cut = int(len(rows) * 0.8)
    ref = [rows[i] for i in sorted(order[:cut])]
    held = [rows[i] for i in sorted(order[cut:])]
    taken = {r.name for r in ref} | {r.name.replace(" ", "") for r in ref}
    names_by_zip: dict[str, set[str]] = {}
    for r in ref:
        names_by_zip.setdefault(r.zip5, set()).add(r.name)
    out = [Query(r.text(), r, "a") for r in held]
    for r in held:
        street = made_up_name(rng, taken, names_by_zip.get(r.zip5, set())) + " " + rng.choice(SUFFIXES)
        if rng.random() < 0.2:
            street = f"{rng.choice(DIRECTIONS)} {street}"
        out.append(Query(r.text(street), r, "b"))
    typo_rows = rng.sample(ref, min(n_typos, len(ref)))
    for r in typo_rows:
        t = with_typos(r, rng, names_by_zip.get(r.zip5, set()))
        if t is not None:
            out.append(Query(t, r, "c"))
    for r in rng.sample(ref, min(len(held), len(ref))):
        street = made_up_name(rng, taken, names_by_zip.get(r.zip5, set())) + " " + rng.choice(SUFFIXES)
        out.append(Query(r.text(street), r, "d"))
    return ref, out


PUB28_FORMS = frozenset(PUB28_SUFFIXES) | frozenset(DIRECTIONALS) | frozenset(UNITS)
_ORDINAL = re.compile(r"^(\d+)(ST|ND|RD|TH)$")
FIRM_WORDS = ["Inc", "LLC", "Corp", "Co", "Ltd", "Group", "Associates", "Building", "Tower", "Medical Center"]
ATTENTION = ["Attn: {}", "ATTN: {}", "Attn {}", "Attention: {}", "c/o {}", "C/O {}", "Care of {}", "Dept. of {}"]
PEOPLE = ["Accounts Payable", "Billing", "Receiving", "J. Okafor", "Maria Lopez", "Shipping Dept", "Finance",
          "Human Resources", "Dr. Chen", "Facilities"]


def _swap(word: str, rng: random.Random) -> str:
    idx = [i for i in range(len(word) - 1) if word[i] != word[i + 1]]
    if not idx:
        return word
    j = rng.choice(idx)
    return word[:j] + word[j + 1] + word[j] + word[j + 2:]


def typo_any_word(row: Row, rng: random.Random, names_in_zip: set[str]) -> str | None:
    """(e) The row with one typo (swap, drop, add, replace) in one word of its street part: a name word of 4
    letters or more takes any of them, a three-letter name word a swap (one edit on three letters is another
    name), an ordinal one slip in its two letters (the digits kept), a suffix, direction or unit designator any
    typo that leaves two letters or more and does not make another valid form. None when no word can take one."""
    words = row.street_raw.upper().split()
    unit_words = row.unit_raw.upper().split()
    name_words = set(row.name.split())
    targets = [("s", i) for i in range(len(words))] + \
        [("u", 0)] * bool(unit_words and unit_words[0] in UNITS and len(unit_words) > 1)
    for _ in range(30):
        part, i = rng.choice(targets)
        ws = list(words if part == "s" else unit_words)
        w = ws[i]
        m = _ORDINAL.match(w)
        if m:
            digits, letters = m.groups()
            op = rng.choice(("swap", "drop", "other"))
            new = digits + (letters[::-1] if op == "swap" else letters[0] if op == "drop" else
                            rng.choice([x for x in ("ST", "ND", "RD", "TH") if x != letters]))
        elif part == "s" and w in name_words:
            if not w.isalpha() or len(w) < 3:
                continue
            new = typo(w, rng) if len(w) >= 4 else _swap(w, rng)
        elif len(w) >= 2 and w.isalpha():
            new = typo(w, rng)
            if new in PUB28_FORMS or len(new) < 2:
                continue  # another valid form, or one letter left ("R" for RD): no reading can tell
        else:
            continue
        if new == w:
            continue
        ws[i] = new
        street = " ".join(ws) if part == "s" else row.street_raw
        name = " ".join(x for j, x in enumerate(ws) if part == "s" and words[j] in name_words)
        if part == "s" and name != row.name and name in names_in_zip:
            continue  # the typo made another street of this ZIP
        unit = " ".join(ws) if part == "u" else row.unit_raw
        return replace(row, unit_raw=unit).text(street)
    return None


def _made_up_word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 3)))).capitalize()


def with_firm_line(row: Row, rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """(f) The row with a firm, attention, care-of, department or building line: before the street (as its own
    component, or in the same line), or after it on a line of its own (attention lines)."""
    if rng.random() < 0.5:
        line = f"{_made_up_word(rng)} {rng.choice(FIRM_WORDS)}"
        attention = False
    else:
        line = rng.choice(ATTENTION).format(rng.choice(PEOPLE))
        attention = True
    unit = f" {row.unit_raw}" if row.unit_raw else ""
    street = f"{row.number} {row.street_raw}{unit}"
    last = f"{row.city}, {row.state} {row.zip5}"
    r = rng.random()
    if r < 0.15:
        return "", (line, street, last)
    if r < 0.3 and attention:
        return f"{street}, {line}, {last}", ()
    if r < 0.4:
        return f"{line} {street}, {last}", ()
    return f"{line}, {street}, {last}", ()


def unlisted_unit(row: Row, rng: random.Random, units: set[str]) -> Row | None:
    """(g) The row typed with a unit its building does not list (the building lists one or several)."""
    for _ in range(10):
        value = rng.choice((str(rng.randrange(100, 999)), rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ"),
                            f"{rng.randrange(1, 9)}{rng.choice('ABCDEF')}"))
        if _ukey(value) not in units:
            desig = rng.choice(("Apt", "Unit", "#", "Ste", "Apt"))
            return replace(row, unit_raw=f"{desig} {value}", unit=_ukey(value))
    return None


def number_form(row: Row, rng: random.Random, truth_numbers: set[tuple[str, str, str]]) -> Query | None:
    """(h) A house number written another way: a form the reference holds (2653.5 as "2653 1/2", 4208-L as
    "4208L") must find it; a plain number typed with a letter or a half the reference lacks ("2653A",
    "2653 1/2") is another address and must not come back as the plain one."""
    n = row.number
    held = re.match(r"^(\d+)(?:\.5|-1/2| 1/2)$", n)
    letter = re.match(r"^(\d+)-?([A-Z])$", n)
    if held:
        typed = rng.choice((f"{held.group(1)} 1/2", f"{held.group(1)}-1/2", f"{held.group(1)}.5"))
        return Query(row.text().replace(n, typed, 1), row, "h") if typed != n else None
    if letter:
        typed = rng.choice((f"{letter.group(1)}{letter.group(2)}", f"{letter.group(1)}-{letter.group(2)}",
                            f"{letter.group(1)} {letter.group(2)}"))
        return Query(row.text().replace(n, typed, 1), row, "h") if typed != n else None
    if not n.isdigit() or row.unit_raw:
        return None
    kind = rng.choice(("letter", "letter", "half"))
    if kind == "half":
        typed, canon = rng.choice((f"{n} 1/2", f"{n}-1/2", f"{n}½")), f"{n} 1/2"
    else:
        c = rng.choice("ABCD")
        typed, canon = rng.choice((f"{n}{c}", f"{n}-{c}", f"{n} {c}")), f"{n}{c}"
    alike = {canon, canon.replace(" 1/2", ".5"), canon.replace(" ", "-"), f"{n}-{canon[-1]}"}
    if any((row.street, a, row.zip5) in truth_numbers for a in alike):
        return None
    return Query(row.text().replace(n, typed, 1), replace(row, number=canon), "h")


def junk_queries(junk: list[dict[str, str]], state: str, zips: list[str], rng: random.Random) -> list[Query]:
    """(i) The placeholder rows of a county file ("123 FAKE ST, ANYTOWN"), typed the ways they would be."""
    out: list[Query] = []
    for r in junk:
        row = Row(r["ID"], r["NUMBER"].strip(), r["STREET"].strip(), "", r["CITY"].strip(), state, "", "", "", "")
        zip5 = rng.choice(zips) if zips else ""
        city = row.city.title()
        for text in (f"{row.number} {row.street_raw}, {row.city}", f"{row.number} {row.street_raw.title()}, {city}",
                     f"{row.number} {row.street_raw} {row.city} {state}",
                     f"{row.number} {row.street_raw.title()}, {city}, {state} {zip5}"):
            out.append(Query(text, row, "i"))
    return out


def _spelled_out(street: str) -> str:
    out = []
    for w in street.upper().split():
        std = PUB28_SUFFIXES.get(w) or ""
        full = SUFFIX_WORDS.get(std, "") if std else DIRECTIONAL_WORDS.get(DIRECTIONALS.get(w, ""), "")
        out.append(full or w)
    return " ".join(out).title()


def _periods(street: str) -> str:
    return " ".join(f"{w}." if w.upper() in PUB28_FORMS and w.upper() not in SUFFIX_WORDS.values()
                    and len(w) <= 4 else w for w in street.split())


def over_caution(row: Row, way: str, rng: random.Random, zips_of_city: dict[str, list[str]]) -> Query | None:
    """A clean reference row typed one of the eight ordinary ways of the over-caution table."""
    unit = f" {row.unit_raw}" if row.unit_raw else ""
    line = f"{row.number} {row.street_raw}{unit}"
    parts: tuple[str, ...] = ()
    if way == "lower case":
        text = row.text().lower()
    elif way == "spelled-out suffix":
        text = f"{row.number} {_spelled_out(row.street_raw)}{unit}, {row.city}, {row.state} {row.zip5}"
    elif way == "ZIP only":
        text = f"{line}, {row.state} {row.zip5}"
    elif way == "city only":
        text = f"{line}, {row.city}, {row.state}"
    elif way == "ZIP+4":
        text = f"{line}, {row.city}, {row.state} {row.zip5}-{rng.randrange(1, 9999):04d}"
    elif way == "periods":
        text = f"{row.number} {_periods(row.street_raw)}{unit}, {row.city}, {row.state}. {row.zip5}"
    elif way == "split components":
        parts = (line, row.city, f"{row.state} {row.zip5}")
        text = ", ".join(parts)
    else:  # neighbouring ZIP: another ZIP of the same city
        others = [z for z in zips_of_city.get(row.city, []) if z != row.zip5]
        if not others:
            return None
        text = f"{line}, {row.city}, {row.state} {rng.choice(others)}"
    return Query(text, row, "o", parts, way)


def make_new_queries(ref: list[Row], seed: int, n: int, junk: list[dict[str, str]],
                     state: str) -> list[Query]:
    """Corpora (e) to (i) and the over-caution rows, from the reference rows (see the module docstring)."""
    rng = random.Random(seed * 7919 + 1)
    names_by_zip: dict[str, set[str]] = {}
    units: dict[tuple[str, str, str], set[str]] = {}
    zips_of_city: dict[str, list[str]] = {}
    for r in ref:
        names_by_zip.setdefault(r.zip5, set()).add(r.name)
        units.setdefault(r.truth, set()).add(r.unit)
        if r.zip5 not in zips_of_city.setdefault(r.city, []):
            zips_of_city[r.city].append(r.zip5)
    truth_numbers = {r.truth for r in ref}
    out: list[Query] = []
    for r in rng.sample(ref, min(n, len(ref))):
        t = typo_any_word(r, rng, names_by_zip.get(r.zip5, set()))
        if t is not None:
            out.append(Query(t, r, "e"))
    for r in rng.sample(ref, min(n, len(ref))):
        text, parts = with_firm_line(r, rng)
        out.append(Query(text or ", ".join(parts), r, "f", parts))
    with_units = [r for r in ref if r.unit and len(units[r.truth] - {""}) >= 1]
    for r in rng.sample(with_units, min(n, len(with_units))):
        g = unlisted_unit(r, rng, units[r.truth])
        if g is not None:
            out.append(Query(g.text(), g, "g"))
    formed = [r for r in ref if not r.number.isdigit()]
    plain = rng.sample(ref, min(n, len(ref)))
    for r in formed + plain:
        h = number_form(r, rng, truth_numbers)
        if h is not None:
            out.append(h)
    out += junk_queries(junk, state, sorted(names_by_zip), rng)
    for r in rng.sample(ref, min(max(n // 4, 1), len(ref))):
        for way in WAYS:
            o = over_caution(r, way, rng, zips_of_city)
            if o is not None:
                out.append(o)
    return out


STREET_SUFFIXES = ("ST", "AVE", "WAY", "CT", "DR", "RD", "LN", "PL", "BLVD", "CIR", "TER")
ONE_LETTER = ("N", "S", "E", "W")
TWO_LETTER = ("NE", "NW", "SE", "SW")
Variant = tuple[str, str, str]  # (predir, suffix, postdir) of a street name


def _typed_street(rng: random.Random, predir: str, name: str, suffix: str, postdir: str) -> str:
    """A street as a person types it: title case, each suffix / direction abbreviated or spelled out."""
    def word(w: str, full: str) -> str:
        return (full if full and rng.random() < 0.3 else w).title()
    parts = [word(predir, DIRECTIONAL_WORDS.get(predir, "")) if predir else "", name.title(),
             word(suffix, SUFFIX_WORDS.get(suffix, "")) if suffix else "",
             word(postdir, DIRECTIONAL_WORDS.get(postdir, "")) if postdir else ""]
    return " ".join(p for p in parts if p)


def make_form_queries(ref: list[Row], seed: int, n: int) -> list[Query]:
    """Corpora (k) to (n) (issue 28): the suffix and direction forms the vendors correct or refuse, and a ZIP off
    by one digit, from the reference rows (see the module docstring)."""
    rng = random.Random(seed * 104729 + 3)
    in_zip: dict[tuple[str, str], dict[Variant, set[str]]] = {}  # (ZIP, name) -> variant -> numbers
    in_city: dict[tuple[str, str], set[Variant]] = {}  # (city, name) -> variants
    names_in_zip: dict[str, set[str]] = {}
    for r in ref:
        v = (r.predir, r.suffix, r.postdir)
        in_zip.setdefault((r.zip5, r.name), {}).setdefault(v, set()).add(r.number)
        in_city.setdefault((r.city, r.name), set()).add(v)
        names_in_zip.setdefault(r.zip5, set()).add(r.name)
    out: list[Query] = []

    def text(r: Row, street: str, zip5: str | None = None) -> str:
        unit = f" {r.unit_raw}" if r.unit_raw else ""
        return f"{r.number} {street}{unit}, {r.city.title()}, {r.state} {zip5 or r.zip5}"

    # (k) a valid suffix the name does not have in the city, where the name with the number has exactly one
    k_rows = [r for r in ref if r.suffix and
              [v for v, nums in in_zip[(r.zip5, r.name)].items() if r.number in nums] == [(r.predir, r.suffix,
                                                                                             r.postdir)]]
    for r in rng.sample(k_rows, min(n, len(k_rows))):
        taken = {v[1] for v in in_city[(r.city, r.name)]}
        others = [x for x in STREET_SUFFIXES if x not in taken]
        if not others:
            continue
        other = rng.choice(others)
        out.append(Query(text(r, _typed_street(rng, r.predir, r.name, other, r.postdir)), r, "k",
                         flag="street_corrected"))
    # (l) a direction left out or wrong where the street exists both with and without one in the ZIP: two readings
    l_queries: list[Query] = []
    for r in ref:
        forms = in_zip[(r.zip5, r.name)]
        plain = forms.get(("", r.suffix, r.postdir))
        if r.predir and plain is not None and r.number not in plain:
            l_queries.append(Query(text(r, _typed_street(rng, "", r.name, r.suffix, r.postdir)), r, "l",
                                   expect="not-confident"))
            dirs = TWO_LETTER if len(r.predir) == 2 else ONE_LETTER
            wrong = [d for d in dirs if (d, r.suffix, r.postdir) not in forms]
            if wrong:
                l_queries.append(Query(text(r, _typed_street(rng, rng.choice(wrong), r.name, r.suffix, r.postdir)),
                                       r, "l", expect="not-confident"))
        elif not r.predir:  # the plain street's number typed with the direction of the other street
            directed = [v[0] for v, nums in forms.items() if v[0] and v[1:] == (r.suffix, r.postdir)
                        and r.number not in nums]
            if directed:
                l_queries.append(Query(text(r, _typed_street(rng, rng.choice(directed), r.name, r.suffix,
                                                             r.postdir)), r, "l", expect="not-confident"))
    out += rng.sample(l_queries, min(n, len(l_queries)))
    # (m) a direction left out or wrong where the name has that one form in the whole city: corrected, flagged
    m_rows = [r for r in ref if r.predir and in_city[(r.city, r.name)] == {(r.predir, r.suffix, r.postdir)}]
    for r in rng.sample(m_rows, min(n, len(m_rows))):
        if rng.random() < 0.7:
            d = ""
        else:
            d = rng.choice([x for x in (TWO_LETTER if len(r.predir) == 2 else ONE_LETTER) if x != r.predir])
        out.append(Query(text(r, _typed_street(rng, d, r.name, r.suffix, r.postdir)), r, "m",
                         flag="street_corrected"))
    # (n) the ZIP off by one digit (the city typed): corrected, flagged; never a ZIP holding a street of that name
    for r in rng.sample(ref, min(n, len(ref))):
        i = rng.randrange(5)
        zip5 = r.zip5[:i] + rng.choice([c for c in "0123456789" if c != r.zip5[i]]) + r.zip5[i + 1:]
        if r.name in names_in_zip.get(zip5, set()):
            continue
        out.append(Query(text(r, _typed_street(rng, r.predir, r.name, r.suffix, r.postdir), zip5), r, "n",
                         flag="zip_code_corrected"))
    return out


JUNK_WORDS = frozenset({"FAKE", "ANYTOWN", "TEST", "PLACEHOLDER"})


def junk_rows(csv_path: Path) -> list[dict[str, str]]:
    """The rows of a county file that are placeholders, not addresses: "123 FAKE ST, ANYTOWN" (no ZIP)."""
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for i, r in enumerate(rows):
        words = set(f"{r.get('STREET', '')} {r.get('CITY', '')}".upper().split())
        if r.get("NUMBER", "").strip() and words & JUNK_WORDS:
            r["ID"] = f"{csv_path.stem}-junk-{i}"
            out.append(r)
    return out


class Truth:
    """What the reference holds, for judging answers."""

    def __init__(self, ref: list[Row]) -> None:
        self.addresses = {r.truth for r in ref}
        self.units: dict[tuple[str, str, str], set[str]] = {}
        for r in ref:
            self.units.setdefault(r.truth, set()).add(r.unit)
        self.streets = {(r.street, r.zip5) for r in ref}
        self.city_of = {r.zip5: r.city for r in ref}


UNIT_CHECKED = frozenset("cefghokmnKM")  # corpora typed from reference rows: a confident answer names the row's unit


@dataclass(frozen=True, slots=True)
class Judged:
    """What validate answered to one query, and how it is judged."""

    confidence: str
    right: bool
    confident_wrong: bool
    got: tuple[str, str, str, str]  # street, number, ZIP, unit of the answer
    silent: bool = False  # a confident answer for another street than typed, or a correction, without its flag
    # a confident wrong answer that is the typed street (absent from the reference) corrected into another form of
    # its name holding the same number in the same ZIP, flagged and below Verified (Interaction required): the
    # MONTEVAL LN / PL shape, the cost of correcting a typed suffix or direction from a sample (`street_forms`)
    twin: bool = False


def judge(engine: AddressEngine, truth: Truth, q: Query) -> Judged:
    """The answer of validate to `q`, judged (see the module docstring)."""
    req = SearchRequest(components=Components(list(q.parts))) if q.parts else SearchRequest.of(q.text)
    res = engine.validate(req).result
    conf = str(res.confidence)
    got = _answer(engine, res.global_address_key)
    flagged = bool(q.flag and res.validation_detail is not None and getattr(res.validation_detail, q.flag, False))
    if q.expect == "not-confident":  # two real readings: any confident answer is a guess
        confident = conf in CONFIDENT
        street_flag = res.validation_detail is not None and res.validation_detail.street_corrected
        return Judged(conf, not confident, confident, got, confident and not street_flag)
    t = q.row.truth if q.corpus not in ("b", "d") else ("", q.row.number, q.row.zip5)  # a street nobody has
    in_ref = t in truth.addresses
    right = False
    if conf in CONFIDENT:
        right = in_ref and got[:3] == t and (q.corpus not in UNIT_CHECKED or not q.row.unit or got[3] == q.row.unit)
        right = right and (not q.flag or flagged)
    elif conf == Confidence.PREMISES_PARTIAL:
        right = in_ref and got[:3] == t and (not q.row.unit or q.row.unit not in truth.units.get(t, set()))
    elif conf == Confidence.STREET_PARTIAL:  # the street, in the ZIP or the city typed
        right = not in_ref and got[0] == t[0] and ((got[0], got[2]) in truth.streets and (
            got[2] == t[2] or truth.city_of.get(got[2]) == q.row.city))
    elif conf in (Confidence.VERIFIED_PLACE, Confidence.NO_MATCHES):
        right = not in_ref and (t[0], t[2]) not in truth.streets
    confident_wrong = conf in CONFIDENT and got[:3] != t
    twin = confident_wrong and conf == Confidence.INTERACTION_REQUIRED and got[1:3] == t[1:3] and \
        res.validation_detail is not None and res.validation_detail.street_corrected and \
        _answer_name(engine, res.global_address_key) == q.row.name
    return Judged(conf, right, confident_wrong, got, bool(q.flag) and conf in CONFIDENT and not flagged, twin)


def judge_search(engine: AddressEngine, q: Query) -> tuple[bool, bool]:
    """(Verified match, Verified match with another address) of a Singleline search of the same text."""
    res = engine.search(SearchRequest.of(q.text, search_type=SearchType.SINGLELINE)).result
    if res.confidence != Confidence.VERIFIED_MATCH or not res.suggestions:
        return False, False
    if q.expect == "not-confident":
        return True, True
    t = q.row.truth if q.corpus not in ("b", "d") else ("", q.row.number, q.row.zip5)
    return True, _answer(engine, res.suggestions[0].global_address_key)[:3] != t


def _answer_name(engine: AddressEngine, key: str) -> str:
    """The street name (no suffix or direction) of the address or building a key names; "" for anything else."""
    parts = engine.keys.decode(key) if key else ()
    if parts and parts[0] in ("a", "b"):
        return engine.index.address(int(parts[2])).street.name
    return ""


def _answer(engine: AddressEngine, key: str) -> tuple[str, str, str, str]:
    """(street, number, ZIP, unit) of the address, building or street a key names."""
    if not key:
        return "", "", "", ""
    parts = engine.keys.decode(key)
    ix = engine.index
    if parts[0] in ("a", "b"):
        a = ix.address(int(parts[2]))
        return a.street.text, a.number, a.street.postcode, _ukey(a.unit) if parts[0] == "a" else ""
    if parts[0] == "r":
        s = ix.street(int(parts[2]))
        return s.text, "", s.postcode, ""
    return "", "", "", ""


class Peer:
    """rapidfuzz extractOne over the reference rows' full address strings, with a score cut-off."""

    def __init__(self, ref: list[Row]) -> None:
        self.rows = ref
        self.choices = [r.text() for r in ref]

    def judge(self, truth: Truth, q: Query) -> tuple[bool, bool, bool]:
        """(right, confident, confident wrong)."""
        from rapidfuzz import fuzz, process, utils

        hit = process.extractOne(q.text, self.choices, scorer=fuzz.ratio, processor=utils.default_process,
                                 score_cutoff=PEER_CUTOFF)
        t = q.row.truth if q.corpus not in ("b", "d") else ("", q.row.number, q.row.zip5)
        if hit is None:
            return t not in truth.addresses, False, False
        got = self.rows[hit[2]].truth
        return got == t and t in truth.addresses, True, got != t


def _key(q: Query) -> str:
    return f"o:{q.way}" if q.corpus == "o" else q.corpus


KEYS = (*CORPORA, *(f"o:{w}" for w in WAYS))


def run_county(name: str, state: str, shared: Path, work: Path, *, seed: int, n_typos: int, peer: bool,
               limit: int | None = None, n_new: int | None = None) -> dict[str, Tally]:
    path = shared / "data" / "openaddresses" / f"{name}.csv"
    rows, raw, header = load_rows(path, state, work)
    ref, queries = make_queries(rows, seed, n_typos)
    junk = junk_rows(path)
    queries += make_new_queries(ref, seed, n_typos if n_new is None else n_new, junk, state)
    queries += make_form_queries(ref, seed, n_typos if n_new is None else n_new)
    ref_ids = {r.id for r in ref}
    ref_csv = work / f"{name}-ref.csv"
    # the reference is built from the county file's rows as they are, its placeholder rows included
    write_csv(ref_csv, header, [*(r for r in raw if r["ID"] in ref_ids), *junk])
    engine = AddressEngine.from_files([ref_csv], out=work / f"{name}.dqidx", country_iso2="US")
    # (K), (M): the queries of (k) and (m) against the same points vouched for as every street of their ZIPs
    # (`--complete`), the data the vendors correct from: only there does a typed street's absence say it is not
    # there (`street_forms`); from the sample (k) and (m) are offered, not corrected
    vouched = AddressEngine.from_files([ref_csv], out=work / f"{name}-vouched.dqidx", country_iso2="US",
                                       complete=True)
    # (i): the junk rows as `reference add` / `build_index` build the file, and as `dqkit serve --reference FILE`
    # and AddressEngine.from_files build it: corpus "j" (both drop them by default)
    build_index([ref_csv], work / f"{name}-clean.dqidx", country_iso2="US")
    cleaned = AddressEngine.open(work / f"{name}-clean.dqidx")
    queries += [replace(q, corpus="j") for q in queries if q.corpus == "i"]
    queries += [replace(q, corpus=q.corpus.upper()) for q in queries if q.corpus in ("k", "m")]
    truth = Truth(ref)
    the_peer = Peer(ref) if peer else None
    tallies = {c: Tally() for c in KEYS}
    if limit is not None:
        by: dict[str, list[Query]] = {}
        for q in queries:
            by.setdefault(_key(q), []).append(q)
        queries = [q for c in KEYS for q in random.Random(seed).sample(by.get(c, []),
                                                                    min(limit, len(by.get(c, []))))]
    for q in queries:
        t = tallies[_key(q)]
        on = cleaned if q.corpus == "i" else vouched if q.corpus in ("K", "M") else engine
        j = judge(on, truth, q)
        conf, right, cwrong, got = j.confidence, j.right, j.confident_wrong, j.got
        t.silent += j.silent
        t.twin += j.twin
        t.n += 1
        t.count[conf] += 1
        t.right[conf] += right
        t.confident_wrong += cwrong
        t.verified_right += right and conf == Confidence.VERIFIED_MATCH
        other_unit = bool(got[3] and got[3] != q.row.unit and got[:3] == q.row.truth)
        t.other_unit += other_unit
        if (cwrong or other_unit or j.silent or (q.corpus in "kmnKM" and not right)) and len(t.examples) < 8:
            t.examples.append(f"{q.text!r} -> {conf}: {' '.join(got)}")
        s_verified, s_wrong = judge_search(on, q)
        t.search_verified += s_verified
        t.search_verified_wrong += s_wrong
        if the_peer is not None:
            p_right, p_conf, p_wrong = the_peer.judge(truth, q)
            t.peer_right += p_right
            t.peer_confident += p_conf
            t.peer_confident_wrong += p_wrong
    return tallies


def run(shared: Path, *, seed: int = 10, n_typos: int = 1000, peer: bool = True, limit: int | None = None,
        counties: Iterable[str] = tuple(COUNTIES), n_new: int | None = None) -> dict[str, Tally]:
    """All counties, tallies summed per corpus (and per way of the over-caution table, "o:WAY")."""
    total = {c: Tally() for c in KEYS}
    with tempfile.TemporaryDirectory(prefix="dqkit-precision-") as d:
        for name in counties:
            got = run_county(name, COUNTIES[name], shared, Path(d), seed=seed, n_typos=n_typos, peer=peer,
                             limit=limit, n_new=n_new)
            for c in KEYS:
                total[c].add(got[c])
    return total


def table(total: dict[str, Tally], peer: bool) -> str:
    lines = [f"{'corpus':<26}{'confidence':<26}{'right':>7}{'wrong':>7}{'count':>7}"]
    for c in CORPORA:
        t = total[c]
        for conf, n in sorted(t.count.items(), key=lambda kv: -kv[1]):
            lines.append(f"{CORPUS_NAMES[c]:<26}{conf:<26}{t.right[conf]:>7}{n - t.right[conf]:>7}{n:>7}")
        lines.append(f"{CORPUS_NAMES[c]:<26}{'ALL':<26}{t.right_total:>7}{t.n - t.right_total:>7}{t.n:>7}")
        lines.append("")
    lines.append(f"{'corpus':<26}{'dqkit right':>12}{'dqkit conf. wrong':>19}{'silent':>8}"
                 f"{'search verified wrong':>23}"
                 + (f"{'peer right':>12}{'peer confident':>16}{'peer conf. wrong':>18}" if peer else ""))
    for c in CORPORA:
        t = total[c]
        n = max(t.n, 1)
        row = f"{CORPUS_NAMES[c]:<26}{t.right_total / n:>12.1%}{t.confident_wrong / n:>19.2%}{t.silent:>8}" \
              f"{f'{t.search_verified_wrong} of {t.search_verified}':>23}"
        if peer:
            row += f"{t.peer_right / n:>12.1%}{t.peer_confident / n:>16.1%}{t.peer_confident_wrong / n:>18.2%}"
        lines.append(row)
    g = total["g"]
    lines.append(f"\n(g) answers naming another unit of the building than the typed one: {g.other_unit} of {g.n}")
    lines.append(f"\nover-caution: clean reference rows typed {len(WAYS)} ways, share answered Verified match "
                 "with the row's address")
    lines.append(f"{'typed as':<22}{'n':>6}{'Verified match':>16}{'conf. wrong':>13}" +
                 (f"{'peer right':>12}" if peer else ""))
    all_o = Tally()
    for w in WAYS:
        t = total[f"o:{w}"]
        all_o.add(t)
        lines.append(_caution_row(w, t, peer))
    lines.append(_caution_row("ALL", all_o, peer))
    return "\n".join(lines)


def _caution_row(label: str, t: Tally, peer: bool) -> str:
    n = max(t.n, 1)
    return f"{label:<22}{t.n:>6}{t.verified_right / n:>16.1%}{t.confident_wrong / n:>13.2%}" + \
        (f"{t.peer_right / n:>12.1%}" if peer else "")


GOLDEN = REPO / "tests" / "address" / "golden" / "hand_typed.csv"
GOLDEN_EXPECT = ("found", "not-confident", "either")


@dataclass(slots=True)
class GoldenRow:
    """One hand-typed address of the golden set, its expectation and what validate answered."""

    text: str
    expect: str
    kind: str
    truth: tuple[str, str, str]  # (street as the reference normalizes it, number, ZIP); empty when none
    unit: str
    flag: str
    confidence: str = ""
    answer: tuple[str, str, str, str] = ("", "", "", "")
    flagged: bool = False
    note: str = ""

    @property
    def confident(self) -> bool:
        return self.confidence in CONFIDENT

    @property
    def right(self) -> bool:
        hit = self.confident and self.answer[:3] == self.truth and (not self.unit or self.answer[3] == self.unit)
        if self.expect == "found":
            return hit and (not self.flag or self.flagged)
        if self.expect == "either":
            return hit or not self.confident
        return not self.confident

    @property
    def confident_wrong(self) -> bool:
        return self.confident and (self.expect == "not-confident" or self.answer[:3] != self.truth)

    @property
    def false_not_found(self) -> bool:
        """A note saying "not found" about a street the reference holds in that ZIP."""
        return bool(self.truth[0]) and f"street {self.truth[0]} not found" in self.note


def golden(shared: Path, path: Path = GOLDEN, *, complete: bool = False) -> list[GoldenRow]:
    """The frozen hand-typed set (tests/address/golden/README.md), validated against the three whole county
    samples as one reference (as `dqkit serve --reference FILE ...` builds it; `complete`: vouched for as every
    street of their ZIPs, as `--complete` does, which they are not: the vendors' setting, for comparison)."""
    files = [shared / "data" / "openaddresses" / f"{c}.csv" for c in COUNTIES]
    with tempfile.TemporaryDirectory(prefix="dqkit-golden-") as d:
        norm: dict[tuple[str, str, str], str] = {}
        for f, state in zip(files, COUNTIES.values(), strict=True):
            rows, _, _ = load_rows(f, state, Path(d))
            norm.update({(r.street_raw.upper(), r.number, r.zip5): r.street for r in rows})
        engine = AddressEngine.from_files(files, out=Path(d) / "golden.dqidx", country_iso2="US", complete=complete)
        out: list[GoldenRow] = []
        with open(path, newline="") as fh:
            for e in csv.DictReader(fh):
                if e["expect"] not in GOLDEN_EXPECT:
                    raise ValueError(f"golden row {e['text']!r}: expect {e['expect']!r}")
                key = (e["street"].upper(), e["number"], e["zip"])
                truth = (norm[key], e["number"], e["zip"]) if e["street"] else ("", "", "")
                g = GoldenRow(e["text"], e["expect"], e["kind"], truth, _ukey(e["unit"]), e["flag"])
                res = engine.validate(SearchRequest.of(g.text))
                r = res.result
                g.confidence = str(r.confidence)
                g.answer = _answer(engine, r.global_address_key)
                g.flagged = bool(g.flag and r.validation_detail is not None
                                 and getattr(r.validation_detail, g.flag, False))
                g.note = res.note
                out.append(g)
    return out


def golden_table(rows: list[GoldenRow], *, each: bool = True) -> str:
    lines = []
    if each:
        for g in rows:
            mark = "ok " if g.right else "CW " if g.confident_wrong else "-- "
            got = " ".join(x for x in g.answer if x)
            flag = f" [{g.flag}: {g.flagged}]" if g.flag else ""
            lines.append(f"{mark}{g.expect:<14}{g.text!r:<58}{g.confidence}: {got}{flag}")
        lines.append("")
    lines.append(f"{'golden set (hand-typed)':<26}{'n':>5}{'right':>8}{'conf. wrong':>13}{'false not found':>17}")
    for exp in (*GOLDEN_EXPECT, "ALL"):
        sel = [g for g in rows if exp in ("ALL", g.expect)]
        lines.append(f"{exp:<26}{len(sel):>5}{sum(g.right for g in sel):>8}{sum(g.confident_wrong for g in sel):>13}"
                     f"{sum(g.false_not_found for g in sel):>17}")
    return "\n".join(lines)


FIXED_SEEDS = (10, 11, 13, 99)


def seeds_table(runs: dict[int, dict[str, Tally]]) -> str:
    """Per corpus and seed: share right and confident wrong count; then the worst of each."""
    seeds = list(runs)
    head = f"{'corpus':<26}" + "".join(f"{f'seed {s}':>14}" for s in seeds) + f"{'worst':>14}"
    lines = [head, f"{'':<26}" + "".join(f"{'right  cw':>14}" for _ in seeds) + f"{'right  cw':>14}"]
    for c in CORPORA:
        cells = []
        for sd in seeds:
            t = runs[sd][c]
            cells.append((t.right_total / max(t.n, 1), t.confident_wrong, t.n))
        worst = (min(x[0] for x in cells), max(x[1] for x in cells))
        lines.append(f"{CORPUS_NAMES[c]:<26}" + "".join(f"{r:>9.1%}{cw:>5}" for r, cw, _ in cells)
                     + f"{worst[0]:>9.1%}{worst[1]:>5}")
    twins = [(sd, c, runs[sd][c].twin) for sd in seeds for c in CORPORA if runs[sd][c].twin]
    lines.append("of the confident wrong, same-number twins corrected (Interaction required, flagged): " +
                 (", ".join(f"seed {sd} {CORPUS_NAMES[c]} {n}" for sd, c, n in twins) or "none"))
    lines.append(f"{'n per seed (min)':<26}" + "".join(
        f"{min(runs[sd][c].n for c in CORPORA if runs[sd][c].n):>14}" for sd in seeds))
    # the flags and the search path: silent validate answers, Singleline search Verified matches naming another
    # address than T (in (l) any Verified match: two real readings)
    lines += ["", "silent validate answers / search Verified match wrong (of search Verified match), per seed",
              f"{'corpus':<26}" + "".join(f"{f'seed {s}':>14}" for s in seeds) + f"{'worst':>14}"]
    for c in CORPORA:
        ts = [runs[sd][c] for sd in seeds]
        worst_t = max(ts, key=lambda t: (t.silent + t.search_verified_wrong, t.search_verified))
        lines.append(f"{CORPUS_NAMES[c]:<26}" + "".join(
            f"{f'{t.silent} / {t.search_verified_wrong} of {t.search_verified}':>14}" for t in ts)
            + f"{f'{worst_t.silent} / {worst_t.search_verified_wrong} of {worst_t.search_verified}':>14}")
    return "\n".join(lines)


def worst_seed(runs: dict[int, dict[str, Tally]]) -> int:
    """The seed with the most confident wrong answers over all corpora, then the lowest mean share right."""
    def badness(sd: int) -> tuple[int, float]:
        tallies = [runs[sd][c] for c in CORPORA if runs[sd][c].n]
        return (sum(t.confident_wrong for t in tallies),
                -sum(t.right_total / t.n for t in tallies) / max(len(tallies), 1))
    return max(runs, key=badness)


def fresh_seeds(k: int) -> list[int]:
    """`k` seeds drawn afresh from the system's randomness (printed by the caller, so a run can be repeated)."""
    sysrand = random.SystemRandom()
    return [sysrand.randrange(100, 10**6) for _ in range(k)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=os.environ.get("DQKIT_SHARED_DIR", str(REPO.parent / "shared")))
    ap.add_argument("--seed", type=int, default=None, help="one seed only (else --seeds and --fresh)")
    ap.add_argument("--seeds", default=",".join(map(str, FIXED_SEEDS)), help="the fixed seeds, comma-separated")
    ap.add_argument("--fresh", type=int, default=4, help="seeds drawn afresh for this run (printed)")
    ap.add_argument("--typos", type=int, default=1000, help="typo queries per county")
    ap.add_argument("--new", type=int, default=None, help="queries per county of each of (e) to (n) (default --typos)")
    ap.add_argument("--limit", type=int, default=None, help="at most this many queries per corpus and county")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--examples", action="store_true", help="print confident wrong answers")
    ap.add_argument("--golden", action="store_true", help="only the frozen hand-typed set (tests/address/golden)")
    ap.add_argument("--complete", action="store_true", help="--golden: the samples vouched for as whole")
    args = ap.parse_args()
    shared = Path(args.shared)
    if not (shared / "data" / "openaddresses").is_dir():
        sys.exit(f"no OpenAddresses samples under {shared}/data/openaddresses (use --shared)")
    if args.golden:
        print(golden_table(golden(shared, complete=args.complete)))
        return
    t0 = time.perf_counter()
    if args.seed is not None:
        seeds = [args.seed]
    else:
        seeds = [int(x) for x in args.seeds.split(",") if x.strip()] + fresh_seeds(args.fresh)
        print(f"seeds: {', '.join(map(str, seeds))} (fixed: {args.seeds}; {args.fresh} drawn afresh)", flush=True)
    runs: dict[int, dict[str, Tally]] = {}
    for sd in seeds:
        runs[sd] = run(shared, seed=sd, n_typos=args.typos, peer=not args.no_peer and len(seeds) == 1,
                       limit=args.limit, n_new=args.new)
        print(f"seed {sd} done ({time.perf_counter() - t0:.0f} s, {time.process_time():.0f} s CPU, load average "
              f"{os.getloadavg()[0]:.2f})", file=sys.stderr, flush=True)
        if args.examples and len(seeds) > 1:  # every seed's confident wrong and silent answers, as they come
            for c in CORPORA:
                t = runs[sd][c]
                if t.confident_wrong or t.silent:
                    print(f"seed {sd} {CORPUS_NAMES[c]}: {t.confident_wrong} confident wrong, {t.silent} silent: "
                          + "; ".join(t.examples), file=sys.stderr, flush=True)
    worst = worst_seed(runs)
    if len(seeds) > 1:
        print(seeds_table(runs))
        print(f"\nworst seed: {worst}; its full table:\n")
    peer = not args.no_peer and len(seeds) == 1
    print(f"validate precision on {', '.join(COUNTIES)} (80% reference / 20% held out, seed {worst})"
          + (f"; peer: rapidfuzz extractOne fuzz.ratio >= {PEER_CUTOFF:.0f} over the reference's address strings"
             if peer else ""))
    total = runs[worst]
    print(table(total, peer))
    for c in CORPORA:
        if args.examples and total[c].examples:
            print(f"\nconfident wrong, silent or not found in {CORPUS_NAMES[c]} (seed {worst}):")
            for e in total[c].examples:
                print("  " + e)
    print(f"\n{time.perf_counter() - t0:.0f} s; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
