"""Which word beginnings a vulgar reading of the sound-alike rule may start (issue 32, speed): prepared here so
that the name model skips that rule for most words with one set look-up.

The rule reads a word (`spoof_model._vulgar_sound`) and looks the reading up, whole or by its head
(`_vulgar_compound`), or by its consonants in a word of 6+ letters (a skeleton). Every rewrite of the reading but
one is local, so the reading of a word's first four letters, its last letter dropped, is how the word's reading
starts (a letter at the end may change or go: ph, oo, ee, an h before a vowel, a doubled letter); the one global
rewrite, v = u in a word without vowels, is not told this way (such a word is always read; in any other word a v
reads as itself, and so it does in the heads: `local_sound`). A reading can fit only when that start and some
vulgar reading are one the other's head, or, for 6+ letters, when the start's consonants head some skeleton.
`vulgar_heads.txt` lists the heads of three and four lower-case ASCII letters for which that holds (made by
tests/lead_rules/build_vulgar_heads.py; test_spoof_model.py checks it against `may_start`); any other head is
computed here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Final

HEAD_LETTERS: Final = 4
_NO_VOWELS: Final = str.maketrans("", "", "aeiouy")


def local_sound(head: str, sound: Callable[[str], str]) -> str:
    """The reading of a word's head with its v read as a v, as in a word with a vowel: the reading's one global
    rewrite (v = u in a word without vowels) kept out by a capital V, which no rewrite reads."""
    return sound(head.replace("v", "V")).replace("V", "v") if "v" in head else sound(head)


def may_start(head: str, sound: Callable[[str], str], vulgar: Mapping[str, str], starts: Collection[str],
              skeletons: Collection[str]) -> tuple[bool, bool]:
    """(whether a word of 3-5 letters, whether one of 6+) that begins with `head`, and is no word of v and
    consonants alone, may read as a vulgar word. `starts`: every head of every key of `vulgar` (`vulgar_starts`)."""
    start = local_sound(head, sound)[:-1]
    if len(start) < 2:
        return True, True
    joined = start in starts or any(start[:j] in vulgar for j in range(2, len(start)))
    consonants = start.translate(_NO_VOWELS)
    return joined, joined or any(k.startswith(consonants) for k in skeletons)


def vulgar_starts(vulgar: Collection[str]) -> frozenset[str]:
    return frozenset(k[:j] for k in vulgar for j in range(1, len(k) + 1))


def read(path: Path) -> tuple[frozenset[str], frozenset[str]]:
    """(heads a word of 3-5 letters may start a reading with, heads one of 6+ may): the prepared file."""
    short: frozenset[str] = frozenset()
    long_only: frozenset[str] = frozenset()
    for line in path.read_text(encoding="utf-8").splitlines():
        kind, _, rest = line.partition("\t")
        if kind == "short":
            short = frozenset(rest.split())
        elif kind == "long":
            long_only = frozenset(rest.split())
    return short, short | long_only


# The reading's rewrites run backwards (spoof_model._vulgar_sound), for a word with a vowel: the raw spellings of
# each letter of a reading (ph = f; c, q = k; z = s; oo = u; ee and a y after the first letter = i; x = ks below).
_SPELLINGS: Final = {"f": "f|ph", "k": "[ckq]", "s": "[sz]", "u": "u|oo", "i": "i|ee|y"}
_READ_VOWELS: Final = frozenset("aeiou")  # an h after one and before no vowel is dropped


def _spelled(letter: str, run: bool) -> str:
    """The raw spellings of one letter of a reading: one of them, or with `run` a run of them (doubled letters read
    as one), among which an h dropped after a vowel."""
    alts = _SPELLINGS.get(letter, letter)
    if "|" in alts:
        one = f"(?:{alts})"
        return f"{one}(?:{alts}{'|h' if letter in _READ_VOWELS else ''})*" if run else one
    if not run:
        return alts
    letters = alts.strip("[]") + ("h" if letter in _READ_VOWELS else "")
    return f"{alts}[{letters}]*" if len(letters) > 1 else f"{alts}{alts}*"


def _key_pattern(key: str, start: int = 0, whole: bool = False) -> str:
    """Raw words whose reading starts with `key` (from its letter `start` on), or with `whole` is `key`: a superset,
    a match may read otherwise, no word that reads so is missed. Each letter may be a run (the reading's doubled
    letters are one), but the last of a start; an x reads ks: it spells the pair ks, or a start's last k."""
    out: list[str] = []
    i = start
    while i < len(key):
        letter, last = key[i], i == len(key) - 1 and not whole
        if letter == "k" and key[i + 1:i + 2] == "s":
            if i + 2 < len(key) or whole:  # the s a run, unless it ends a start
                out.append("(?:[ckq]*x[sz]*|[ckq]+[sz]+)")
            else:
                out.append("(?:[ckq]*x|[ckq]+[sz])")
            i += 2
            continue
        out.append("[ckqx]" if letter == "k" and last else _spelled(letter, not last))
        i += 1
    return "".join(out)


def _alternatives(keys: Collection[str], whole: bool) -> list[str]:
    """_key_pattern of each key, those of a first letter grouped after its spellings (one test of that letter)."""
    groups: dict[str, list[str]] = {}
    for k in sorted(keys):
        groups.setdefault(k[0], []).append(k)
    parts = []
    for first, group in sorted(groups.items()):
        if all(len(k) > 1 and k[:2] != "ks" for k in group):
            parts.append(_spelled(first, True) + "(?:" + "|".join(_key_pattern(k, 1, whole) for k in group) + ")")
        else:
            parts.extend(_key_pattern(k, 0, whole) for k in group)
    return parts


def _skeleton_pattern(skeleton: str) -> str:
    """Raw words whose reading's consonants are `skeleton` exactly (a superset, as _key_pattern's)."""
    vowels = "[aeiouyh]*"
    return vowels + "".join(_spelled(c, True) + vowels for c in skeleton) + r"\Z"


def reading_gate(keys: Collection[str], skeletons: Collection[str], insults: Collection[str]) -> str:
    """A regex that matches, from the start of a lower-case word, every word whose reading may fit the sound-alike
    rule (spoof_model._read_vulgar) and few others: its reading may be a key of `keys`, or its start may read as
    one before an insult word of `insults` that ends it, or before three letters or more after four letters or more
    (_vulgar_compound's tails: an insult, or a common word after a head of 4+ letters); or its consonants are a
    skeleton, or it is a word of v and consonants alone (v reads u there) or of other characters than a-z (the
    group READ: not told here). One C call where the four-letter heads let a sixth of unknown names' words through
    to the reading; a superset, so a word it lets through is read as before (test_spoof_model)."""
    tails = "|".join(sorted(insults, key=lambda w: (-len(w), w)))
    return (f"(?:{'|'.join(_alternatives(keys, True))})(?:\\Z|(?:{tails})\\Z|(?<=....)...)"
            f"|(?P<{READ}>{read_as_they_are(skeletons)})")


READ: Final = "read"  # reading_gate's group of the words to read as they are (the match's lastgroup)


def read_as_they_are(skeletons: Collection[str]) -> str:
    """The words reading_gate lets through to be read whatever their start: a skeleton's (matched to the end), of v
    and consonants alone (v reads u there), with a character other than a-z (not told by these regexes)."""
    return "|".join([*(_skeleton_pattern(s) for s in sorted(skeletons)), r"[^aeiouy]*v[^aeiouy]*\Z", r".*[^a-z]"])


def reading_is(keys: Collection[str]) -> str:
    """A regex that matches a whole raw word (or head: its end given) whose reading may be a key of `keys`, for a
    word reading_gate let through by its start: spoof_model._may_fit asks it of the word and of a compound's head.
    A superset, as reading_gate is."""
    return "|".join(_alternatives(keys, True))
