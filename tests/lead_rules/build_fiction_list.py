"""Build `dqkit/engines/lead/wordlists/fictional_characters.txt` from faker-ruby's character lists, and
`tv_characters.txt` from `data/wga_tv101_characters.txt` (characters of the WGA best-written series, ranks 1-77).

Source: every list under a key with "character" in its name in the `en` locale of faker-ruby 2.21.0 (MIT), as
packaged by Debian (`ruby-faker` 2.21.0-1): ~70 franchises of TV series, cartoons, films, books and games. The
lists are taken whole, by category (every character list faker ships), never picked name by name.

Kept: names of two or more words (a lone "Kramer" or "Penny" is not a whole name); quoted nicknames and
parentheses dropped. Dropped, so real people pass: names whose given name and surname are both Census 1990
names and that more than MAX_BEARERS (20) people in the US are expected to bear (Michael Scott, Amy Wong,
Rosa Diaz), in either order (King James is James King written surname first), computed from the Census
frequencies bundled by the `names` package, also over the spellings that are one with doubled letters made one
(Benet = Bennett), as the matching reads them; names that written together are one Census name (Dee Dee =
Deedee); a title with a Census name (Mr. Garrison, Principal Skinner); and names whose
given name and surname are both names of one culture in faker's person providers (Muhammad Ali, Vaclav Havel):
the 1990 Census does not see them, but they are ordinary names where they come from.

Run: `apt-get download ruby-faker && dpkg-deb -x ruby-faker_*.deb /tmp/rf` then
`.venv/bin/python tests/lead_rules/build_fiction_list.py /tmp/rf [/tmp/wn/usr/share/wordnet]` (needs the dev extra
`names` and PyYAML); the second folder, from `apt-get download wordnet-base` unpacked the same way, adds WordNet's
famous people and characters.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from pathlib import Path

import names
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_name_sets import faker_names

OUT = Path(__file__).resolve().parents[2] / "dqkit" / "engines" / "lead" / "wordlists" / "fictional_characters.txt"
OUT_WGA = OUT.with_name("tv_characters.txt")
OUT_FUNNY = OUT.with_name("funny_names.txt")
OUT_PEOPLE = OUT.with_name("famous_people.txt")
OUT_WORDNET_PEOPLE = OUT.with_name("wordnet_people.txt")
OUT_WORDNET_CHARACTERS = OUT.with_name("wordnet_characters.txt")
NOUN_PERSON = 18  # WordNet's lexicographer file noun.person
WGA = Path(__file__).resolve().parent / "data" / "wga_tv101_characters.txt"
MAX_BEARERS = 20.0  # expected US bearers of the pair above which a character name is also a real person's
US_PEOPLE = 250e6  # 1990 population, the Census lists' own base
TITLES = {"dr", "mr", "mrs", "ms", "miss", "sir", "officer", "captain", "agent", "detective", "professor",
          "principal", "coach", "uncle", "aunt", "grandpa", "grandma", "lieutenant", "sergeant", "general",
          "colonel", "major", "reverend", "father", "sister", "brother", "judge", "mayor", "chief", "nurse"}


HONORIFICS = {"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "rev", "sir"}


def _census() -> tuple[dict[str, float], dict[str, float]]:
    folder = Path(names.__file__).resolve().parent

    def load(file: str, scale: float) -> dict[str, float]:
        out: dict[str, float] = {}
        for line in (folder / file).read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) >= 2:
                out[parts[0].lower()] = out.get(parts[0].lower(), 0.0) + float(parts[1]) / 100 * scale
        return out

    first = load("dist.female.first", 0.5)
    for k, v in load("dist.male.first", 0.5).items():
        first[k] = first.get(k, 0.0) + v
    return first, load("dist.all.last", 1.0)


def _undouble(word: str) -> str:
    return re.sub(r"(.)\1+", r"\1", word)


def _by_undoubled(freq: dict[str, float]) -> dict[str, float]:
    """Frequencies summed over the spellings that are one with doubled letters made one (Bennett, Benet)."""
    out: dict[str, float] = {}
    for name, f in freq.items():
        out[_undouble(name)] = out.get(_undouble(name), 0.0) + f
    return out


def _words(name: str) -> list[str]:
    name = re.sub(r"\"[^\"]*\"|\([^)]*\)", " ", name)
    name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return re.findall(r"[a-z][a-z'.-]*", name)


# faker-ruby keys whose lists hold real, famous people (actors of a show, players and coaches, musicians of a
# band, hip-hop artists, scientists, bossa nova artists), taken whole like the character lists.
PEOPLE_KEYS = ("actors", "players", "player", "coaches", "coach", "musicians", "artist", "artists", "scientist")


def _collect(root: Path, wanted: tuple[str, ...] | None = None) -> list[str]:
    """Every string of the `en` lists under a key with "character" in its name, or under one of `wanted`."""
    found: list[str] = []

    def walk(node: object, key: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, str(k))
        elif isinstance(node, list) and (key in wanted if wanted else "character" in key):
            found.extend(x for x in node if isinstance(x, str) and "#{" not in x)

    for file in sorted(root.rglob("lib/locales/en/*.yml")):
        walk(yaml.safe_load(file.read_text(encoding="utf-8").replace("\t", " ")), "")
    return found


def _wordnet(dict_dir: Path) -> tuple[list[str], list[str]]:
    """(people, fictional characters) of WordNet 3.0: every name of two words or more that is an INSTANCE of a
    noun.person synset (Albert Einstein is an instance of physicist; Sherlock Holmes of fictional character)."""
    synsets: dict[str, tuple[int, list[str], list[str]]] = {}
    for line in (dict_dir / "data.noun").read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):
            continue  # the licence header
        f = line.partition("|")[0].split()
        count = int(f[3], 16)
        words = [f[4 + 2 * i] for i in range(count)]
        at = 4 + 2 * count
        instance_of = [f[at + 2 + 4 * k] for k in range(int(f[at])) if f[at + 1 + 4 * k] == "@i"]
        synsets[f[0]] = (int(f[1]), words, instance_of)
    people: set[str] = set()
    characters: set[str] = set()
    for lex, words, instance_of in synsets.values():
        if lex != NOUN_PERSON or not instance_of:
            continue
        whole = {w.replace("_", " ") for w in words if "_" in w}
        kinds = [w for off in instance_of for w in synsets[off][1]]
        (characters if any("character" in k for k in kinds) else people).update(whole)
    return sorted(people), sorted(characters)


@functools.cache
def _faker_pairs() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Given names and surnames of faker's person providers of 40+ cultures (build_name_sets.faker_names),
    lower case, each with its cultures: a name whose two parts are names of one culture is a real name there
    (Muhammad Ali, Vaclav Havel), whatever the US Census says."""
    given: dict[str, set[str]] = {}
    surnames: dict[str, set[str]] = {}
    for (name, role), cultures in faker_names().items():
        (given if role == "given" else surnames).setdefault(name.lower(), set()).update(cultures)
    return given, surnames


def _kept(raw_names: list[str], first_p: dict[str, float], last_p: dict[str, float]) -> tuple[list[str], int]:
    """The whole names worth matching, and how many were dropped as real people's names."""
    kept: set[str] = set()
    dropped = 0
    faker_given, faker_surnames = _faker_pairs()
    first_u, last_u = _by_undoubled(first_p), _by_undoubled(last_p)  # matching also reads Benet as Bennett
    for raw in raw_names:
        words = [w.strip("'.-") for w in _words(raw)]
        words = [w for w in words if w]
        while len(words) > 2 and words[0] in TITLES:
            words = words[1:]
        if len(words) < 2 or len(words) > 4 or sum(len(w) > 1 for w in words) < 2:
            continue  # one word, or an initial and one word (A. Long): too little to call a name a joke
        first, last = words[0], words[-1]
        if len(words) == 2 and (first in TITLES or first in HONORIFICS) and (last in first_p or last in last_p):
            dropped += 1  # Mr. Garrison, Principal Skinner: a title and a real surname
            continue
        if "".join(words) in first_p or "".join(words) in last_p:  # Dee Dee = Deedee, a real given name
            dropped += 1
            continue
        if any(first_p.get(a, 0.0) * last_p.get(b, 0.0) * US_PEOPLE > MAX_BEARERS or (
                first_u.get(_undouble(a), 0.0) * last_u.get(_undouble(b), 0.0) * US_PEOPLE > MAX_BEARERS)
               for a, b in ((first, last), (last, first))):  # also read the other way: King James = James King
            dropped += 1
            continue
        if faker_given.get(first, set()) & faker_surnames.get(last, set()):
            dropped += 1  # a real name in one of faker's cultures
            continue
        kept.add(" ".join(words))
    return sorted(kept), dropped


FILTER_NOTE = (
    "# Names that are also common real names (both parts Census 1990 names, more than {bearers:.0f} expected US\n"
    "# bearers; one Census name written together; both parts names of one culture in faker's person lists:\n"
    "# {dropped} dropped) are left out. Built by\n"
    "# tests/lead_rules/build_fiction_list.py. Matched on the whole name only, exactly or with doubled letters\n"
    "# made one (Jon Snoww), never by sound (so long a list would catch real names that way).\n"
)


def _write(out: Path, raw: list[str], header: str, census: tuple[dict[str, float], dict[str, float]]) -> None:
    """One bundled list: its header, the filter note, then the names kept, one a line."""
    names_, dropped = _kept(raw, *census)
    out.write_text(header + FILTER_NOTE.format(bearers=MAX_BEARERS, dropped=dropped)
                   + "".join(f"{n}\n" for n in names_), encoding="utf-8")
    print(f"{len(names_)} names written to {out} ({dropped} common real-name pairs dropped)")


def main(root: Path) -> None:
    census = _census()
    _write(OUT, _collect(root), (
        "# Fictional characters of ~70 TV series, cartoons, films, books and games: every two-to-four-word\n"
        "# character name of faker-ruby 2.21.0's `en` locale (MIT; Debian package ruby-faker 2.21.0-1), taken\n"
        "# whole by category.\n"), census)
    wga_lines = WGA.read_text(encoding="utf-8").splitlines()
    raw = [n.strip() for ln in wga_lines if not ln.startswith("#") for n in ln.split(";") if n.strip()]
    _write(OUT_WGA, raw, (
        "# Characters of the scripted series ranked 1-77 in the Writers Guild of America's \"101 Best Written TV\n"
        "# Series\" (2013): see tests/lead_rules/data/wga_tv101_characters.txt for the series and the origin.\n"),
        census)
    funny_file = next(root.rglob("lib/locales/en/funny_name.yml"))
    funny: list[str] = yaml.safe_load(funny_file.read_text(encoding="utf-8"))["en"]["faker"]["funny_name"]["name"]
    funny += [" ".join((ws[0], ws[-1])) for ws in map(str.split, funny) if len(ws) == 3 and len(ws[1].strip(".")) == 1]
    _write(OUT_FUNNY, funny, (
        "# Pun and prank names (\"a name that reads as a joke\"): faker-ruby 2.21.0's `funny_name` list (MIT; Debian\n"
        "# package ruby-faker 2.21.0-1), taken whole, plus each name with its middle initial left out.\n"), census)
    _write(OUT_PEOPLE, _collect(root, PEOPLE_KEYS), (
        "# Famous real people typed into lead forms as a joke: every list of real people in faker-ruby 2.21.0's `en`\n"
        f"# locale (keys {', '.join(PEOPLE_KEYS)}: actors of a show, players and coaches, musicians of a band,\n"
        "# hip-hop artists, scientists; MIT; Debian package ruby-faker 2.21.0-1), taken whole. A real person who\n"
        "# shares such a name gets E100's soft failure (CATEGORY SPOOF), like celebrity_names.txt.\n"), census)
    if len(sys.argv) > 2:
        people, characters = _wordnet(Path(sys.argv[2]))
        for out, raw, what in ((OUT_WORDNET_PEOPLE, people, "famous people (instances of a kind of person)"),
                               (OUT_WORDNET_CHARACTERS, characters, "fictional characters")):
            _write(out, raw, (
                f"# {what.capitalize()} of WordNet 3.0 (Debian package wordnet-base 1:3.0-37): every name of two\n"
                "# words or more of a noun.person synset that is an instance, taken whole.\n"
                "# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. Licence and disclaimer:\n"
                "# WORDNET_LICENSE.txt in this folder.\n"), census)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
