"""Spoof detection scored on data its rules were not written from (part 6 of issue 12).

- `data/spoof_published.csv`: spoofs from independent published lists, split by SOURCE: the `tune` sources were
  used to extend the word lists; the `heldout` sources never were (see README.md for every list's origin).
- Obfuscations of every published spoof, made by rules the detector's normaliser was not written from
  (Cyrillic look-alike letters, surname first with a comma, dots or hyphens inside words, doubled consonants,
  inverted case): reported apart.
- A second, fresh obfuscation family (invisible and combining characters, fullwidth letters, titles, initials,
  suffixes), written after the last change to the normaliser and measured once before any change for it.
- `data/multicultural_names.csv`: 1,300+ real given names and surnames from published name lists (faker's person
  providers and documented supplements) of 40+ cultures that collide with an English vulgar word list
  (better-profanity's, which the detector does not use): none may be flagged.

The figures are printed (run with -s). Each assertion is a floor set below the measured value, with the margin
stated beside it (a precision fix that costs a name must not fail it; a real loss of recall must); the goal of
issue 12, 90% held-out recall, is not met and not asserted. These sets mix list lookups with rules:
`test_spoof_clean.py` reports the two apart.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from dqkit.contract.lead import LeadRequest
from dqkit.engines.lead.spoof import explain_spoof

DATA = Path(__file__).resolve().parent / "data"
CYRILLIC = str.maketrans({"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у"})


def _rows(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _flagged(first: str = "", last: str = "", full: str = "") -> bool:
    return explain_spoof(LeadRequest(first_name=first, last_name=last, full_name=full, zip="20500")) is not None


def _obfuscations(row: dict[str, str], rng: random.Random) -> list[tuple[str, str, str]]:
    first, last = row["first_name"], row["last_name"]
    if not (first and last):
        return []
    out = [("", "", f"{last}, {first}"), (first.swapcase(), last.swapcase(), ""),
           (first.translate(CYRILLIC), last.translate(CYRILLIC), "")]
    i = rng.randrange(1, max(2, len(last)))
    out.append((first, last[:i] + "-" + last[i:], ""))
    cons = [k for k, ch in enumerate(last) if ch.lower() in "bdfgklmnprstvz"]
    if cons:
        k = rng.choice(cons)
        out.append((first, last[: k + 1] + last[k] + last[k + 1:], ""))
    return out


def test_held_out_sources(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows("spoof_published.csv")
    by_split: dict[str, list[bool]] = {}
    for r in rows:
        by_split.setdefault(r["split"], []).append(_flagged(r["first_name"], r["last_name"], r["full_name"]))
    tune, held = by_split["tune"], by_split["heldout"]
    sources = {r["source"] for r in rows if r["split"] == "heldout"} & {r["source"] for r in rows
                                                                       if r["split"] == "tune"}
    assert not sources  # split by source: no list on both sides
    rng = random.Random(12)
    obf = [_flagged(*o) for r in rows for o in _obfuscations(r, rng)]
    with capsys.disabled():
        print(f"\nspoof recall: tune {sum(tune)}/{len(tune)} ({sum(tune) / len(tune):.1%}); held-out "
              f"{sum(held)}/{len(held)} ({sum(held) / len(held):.1%}); obfuscated {sum(obf)}/{len(obf)} "
              f"({sum(obf) / len(obf):.1%})")
    assert sum(tune) == len(tune)
    # Measured 81.2% (68.8% before the bundled character lists); 79.2% = 38/48 once the lists dropped names that
    # are ordinary names of one of faker's cultures (Muhammad Ali), a precision change: see README.md.
    # Floor 36/48 = 0.75, two names below the measured 38. 28-30 of the 48 are list entries (test_spoof_clean.py).
    assert sum(held) / len(held) >= 0.75
    # Measured 90.0% (72.2% before look-alike letters were read as Latin), 89.4%, 89.1% = 427/479 once
    # english_words.txt came from SCOWL instead of wordfreq (issue 23). Floor 0.86, about 15 leads below.
    assert sum(obf) / len(obf) >= 0.86


@pytest.mark.parametrize("name", ["Seymour Butz", "Hugh Rection", "Testy McTestface", "Walter White"])
def test_named_spoofs_are_caught(name: str) -> None:
    first, last = name.split(" ", 1)
    assert _flagged(first, last) and _flagged(full=name)


@pytest.mark.parametrize("name", ["Fuk Lam", "Fuk Wing Chan", "Anal Kumar", "Phuc Nguyen", "Dung Tran",
                                  "Porntip Srisuk", "Dick Fuchs", "Nazi Yilmaz", "Tit Chan", "Kike Garcia"])
def test_named_real_people_pass(name: str) -> None:
    first, last = name.rsplit(" ", 1)
    assert not _flagged(first, last) and not _flagged(full=name)


def test_multicultural_names_that_collide_with_vulgar_words_pass(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows("multicultural_names.csv")
    cultures = {c for r in rows for c in r["cultures"].split("; ")}
    assert len(rows) >= 500 and len(cultures) >= 30
    for wanted in ("Vietnamese", "Cantonese", "Thai", "Indian", "Yoruba (Nigerian)", "German", "Dutch", "British"):
        assert wanted in cultures, wanted
    flagged = []
    for r in rows:
        args = (r["name"], "Okafor") if r["role"] == "given" else ("Anna", r["name"])
        if _flagged(*args) or _flagged(full=" ".join(args)):
            flagged.append(r["name"])
    with capsys.disabled():
        print(f"\nmulticultural names flagged: {len(flagged)}/{len(rows)} {flagged}")
    assert flagged == []


# A second, fresh obfuscation family, written after the detector's last change to its normaliser and measured
# once before any change was made for it: invisible and combining characters, fullwidth letters, titles,
# middle initials and suffixes around the name.
ZWSP, SOFT_HYPHEN, ACUTE = "\u200b", "\u00ad", "\u0301"


def _fresh_obfuscations(row: dict[str, str], rng: random.Random) -> list[tuple[str, str, str]]:
    first, last = row["first_name"], row["last_name"]
    if not (first and last):
        return []
    i = rng.randrange(1, max(2, len(last)))
    vowel = next((k for k, ch in enumerate(first) if ch.lower() in "aeiou"), None)
    accented = first if vowel is None else first[: vowel + 1] + ACUTE + first[vowel + 1:]
    fullwidth = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in first)
    return [(first, last[:i] + ZWSP + last[i:], ""), (first, last[:i] + SOFT_HYPHEN + last[i:], ""),
            (accented, last, ""), (fullwidth, last, ""), ("", "", f"Dr. {first} Q. {last}"),
            (first, f"{last} Jr.", ""), ("", "", f"{first.upper()}  {last.upper()}, PhD")]


def test_fresh_obfuscation_family(capsys: pytest.CaptureFixture[str]) -> None:
    """Over every published spoof; and over those caught when plain (what the obfuscation alone costs)."""
    rng = random.Random(2026)
    rows = _rows("spoof_published.csv")
    cases = [(r, o) for r in rows for o in _fresh_obfuscations(r, rng)]
    hits = [_flagged(*o) for _, o in cases]
    plain = [_flagged(r["first_name"], r["last_name"], r["full_name"]) for r, _ in cases]
    kept = sum(h for h, p in zip(hits, plain, strict=True) if p)
    with capsys.disabled():
        print(f"\nfresh obfuscation family: {sum(hits)}/{len(hits)} ({sum(hits) / len(hits):.1%}); of the spoofs "
              f"caught plain: {kept}/{sum(plain)} ({kept / sum(plain):.1%})")
    assert len(cases) >= 500
    # Measured 89.3% the first time, before any change made for it; 88.2% = 593/672 after the faker-culture
    # filter; 98.5% of those caught plain. Floors 0.85 (about 20 leads below) and 0.96 (about 15 below).
    assert sum(hits) / len(hits) >= 0.85
    assert kept / sum(plain) >= 0.96
