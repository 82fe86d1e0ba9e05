"""What a real name looks like (issue 32): the part of E100 that catches a joke name no list holds.

Lists catch the spoofs someone wrote down; this model judges a name by its words, from real name statistics:
how many US people bear each word as a given name and as a surname (SSA and Census counts), in which cultures'
name lists it stands (faker's 80+ locales and the allowlist's hand-listed names), and how common it is as an
English word (SCOWL sizes). A name is a spoof when

- **English words, no name**: every word is an English word and, summed over the words, the word is far more
  likely than the name ("Pee Pants", "Couch Potato", "Go Away"); "Will Power" and "Rose Bush" are real names,
  since Will, Power, Rose and Bush are common names in their places;
- **vulgar sound-alike**: a word respelled to hide a vulgar one ("Azz", "Phuk", "Fvck", "Titz", "Nutz"), or
  made of one and an insult word ("Azwipe", "Dikweed"), that is no English word and no plausible name; a word
  that only sounds like one as names of other languages are spelled (Kunt, Dik, Kok, Fuk, Phuc) flags only next
  to an insult or a vulgar word ("Kunt Face", "Dik Head", "Fuk You");
- **pun reading**: a common given name and a surname no source holds as a name, read aloud together as one common
  English word, vowels taken loosely ("Ella Vator" = elevator, "Lou Natic" = lunatic; not "Anna Conda": Conda is a real
  surname);
- **repeated non-name**: the same word as given name and surname when it is no name ("Tbd Tbd");
- **letters only**: a name made of single letters ("N/A N/A").

A real name of a culture the data covers is not flagged however it collides with English (Phuc, Fuk, Anal,
Kuntal, Dikshit, Shittu): the name weights protect it. Every flag carries a `Reason` (rule, word, scores) for
the answer's VALUE, the output columns and the report, so an analyst can overrule it.

Tables are prepared at build time (tests/lead_rules/build_name_model.py) and only read here, in one pass of
`dict.fromkeys` per line: loading takes a few tens of milliseconds. Thresholds were tuned on the development
split of tests/lead_rules/eval/spoof_fresh.csv and on real names whose words were hidden from the model
(tests/lead_rules/test_spoof_model.py), never on the reported test split or the real-name evaluation set.
"""

from __future__ import annotations

import array
import bisect
import functools
import re
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

WORDLISTS: Final = Path(__file__).resolve().parent / "wordlists"

# Rules, as Reason.rule.
ENGLISH_WORDS: Final = "English words, no name"
VULGAR_SOUND: Final = "vulgar sound-alike"
PUN_READING: Final = "pun reading"
REPEATED_NON_NAME: Final = "repeated non-name"
LETTERS_ONLY: Final = "letters only"

# How common an English word is, on the scale of the name weights (10 x log10 of bearers): SCOWL size 10 (the
# commonest words) weighs as a name of 100,000 bearers.
_WORD_WEIGHT: Final = {10: 50, 20: 45, 35: 40, 40: 37, 50: 33, 55: 30, 60: 27, 70: 22}
# Tuned on the dev split (see the module docstring): the summed word-over-name margin that flags a name of
# English words; a word borne as a surname counts 10 (one order of magnitude) less as a given name and back.
ENGLISH_MARGIN: Final = 23
ROLE_SWAP: Final = 10
# A word spelled to sound vulgar flags alone only below this name weight (20 = 100 US bearers).
VULGAR_NAME_MAX: Final = 20
# The pun reading starts from a given name of 1,000+ US bearers (30) and needs a surname that no source holds:
# Anna Conda (Conda: 250 US bearers), Wei Test ("wettest") and Maria Net ("marinate") are possible people.
PUN_GIVEN_MIN: Final = 30
PUN_MIN_LETTERS: Final = 6
PUN_MAX_SIZE: Final = 50
# Words next to which a name that is also a vulgar sound-alike is read as the insult (Dik Head, Fuk You).
INSULT_WORDS: Final = frozenset({"you", "u", "yu", "yoo", "ya", "off", "me", "yourself", "it", "face", "head",
                                 "hole", "bag", "sucker", "licker", "wipe", "wad", "munch", "breath", "stain",
                                 "weed", "wit", "brain", "lord", "master", "clown", "hat", "nugget", "biscuit"})


@dataclass(frozen=True, slots=True)
class Reason:
    """Why the model flagged a name: the rule, the word it is about, and the scores it weighed."""

    rule: str
    token: str
    detail: str

    def text(self) -> str:
        return f"{self.rule}: {self.token} ({self.detail})"


@dataclass(frozen=True, slots=True)
class NameModel:
    given: dict[str, int]  # word -> 10 x log10 US bearers as a given name (faker and hand lists count 40)
    surname: dict[str, int]  # same, as a surname
    cultures: dict[str, str]  # word -> cultures whose lists hold it (words the rules may flag)
    words: dict[str, int]  # English word -> SCOWL size
    vulgar: dict[str, str]  # _vulgar_sound key -> the vulgar word
    puns: dict[str, str]  # _coarse key of a common English word of 6+ letters -> the word
    pun_givens: frozenset[str]  # given names of 1,000+ bearers whose reading starts some pun word's (build time)

    def weight(self, word: str) -> int:
        return max(self.given.get(word, 0), self.surname.get(word, 0))

    def scores(self, word: str) -> str:
        """A word's scores, as shown in a Reason."""
        parts = [f"given {self.given.get(word, 0) / 10:.1f}", f"surname {self.surname.get(word, 0) / 10:.1f}"]
        size = self.words.get(word)
        parts.append(f"English word size {size}" if size else "no English word")
        culture = self.cultures.get(word)
        if culture:
            parts.append(f"name in {culture}")
        return "log10 US bearers: " + ", ".join(parts)


def _lines(name: str) -> list[str]:
    text = (WORDLISTS / name).read_text(encoding="utf-8")
    return [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


@functools.cache
def model() -> NameModel:
    """The tables, read once per process."""
    given: dict[str, int] = {}
    surname: dict[str, int] = {}
    cultures: dict[str, str] = {}
    for line in _lines("name_model.txt"):
        head, _, rest = line.partition("\t")
        kind, _, arg = head.partition(" ")
        if kind == "given":
            given.update(dict.fromkeys(rest.split(), int(arg)))
        elif kind == "surname":
            surname.update(dict.fromkeys(rest.split(), int(arg)))
        else:
            label = arg.replace("_", " ")
            for w in rest.split():
                cultures[w] = f"{cultures[w]}, {label}" if w in cultures else label
    words: dict[str, int] = {}
    for line in _lines("english_sizes.txt"):
        size, _, rest = line.partition("\t")
        words.update(dict.fromkeys(rest.split(), int(size)))
    vulgar = {_vulgar_sound(w): w for w in (ln.strip() for ln in _lines("vulgar_sounds.txt"))}
    puns: dict[str, str] = {}
    pun_givens: frozenset[str] = frozenset()
    for line in _lines("pun_words.txt"):
        keys, _, ws = line.partition("\t")
        if keys == "givens":
            pun_givens = frozenset(ws.split())
        else:
            puns.update(zip(keys.split(), ws.split(), strict=True))
    return NameModel(given, surname, cultures, words, vulgar, puns, pun_givens)


# ---------------------------------------------------------------- readings

_RUNS: Final = re.compile(r"(.)\1+")
_VOWEL: Final = frozenset("aeiouy")
_VOWEL_H: Final = re.compile(r"(?<=[aeiou])h(?![aeiou])")


@functools.lru_cache(maxsize=65536)
def _vulgar_sound(word: str) -> str:
    """How a word reads for the sound-alike rule: Phuk = fuk = fuck, Azz = as = ass, Fvck = fuk, Kunt = cunt.
    Plain string replacements (a regex pass per rule cost 5 us a word): ph = f, ck / q / c = k, x = ks, z = s,
    oo = u, ee = i, a y after the first letter = i, an h after a vowel and before none dropped (fuhk), v = u in a
    word without vowels (Fvck, Cvnt), doubled letters one."""
    if "v" in word and not (_VOWEL & set(word)):
        word = word.replace("v", "u")
    word = (word.replace("ph", "f").replace("ck", "k").replace("q", "k").replace("c", "k").replace("x", "ks")
            .replace("z", "s").replace("oo", "u").replace("ee", "i"))
    if "y" in word[1:]:
        word = word[0] + word[1:].replace("y", "i")
    if "h" in word:
        word = _VOWEL_H.sub("", word)
    return _RUNS.sub(r"\1", word)


_CO_SPELL: Final = re.compile(r"ph|ck|gh|wh|c(?=[eiy])|g(?=[eiy])|(?<=[^aeiouy])e$|(?<=[aeiouy])[hw]"
                               r"|(?<=[^aeiouy])h|[qcxz]")
_CO_SOUND: Final = {"ph": "f", "ck": "k", "gh": "g", "wh": "w", "c": "k", "q": "k", "x": "ks", "z": "s",
                    "e": "", "h": "", "w": ""}
_CO_SOFT: Final = {"c": "s", "g": "j"}  # before e, i, y
_CO_RUNS: Final = re.compile(r"([aio])[aio]+|(.)\2+")
_VOWEL_CLASSES: Final = str.maketrans("eyu", "aio")


def _co_spell(m: re.Match[str]) -> str:
    text = m.group()
    end = m.end()
    if text in _CO_SOFT and end < len(m.string) and m.string[end] in "eiy":
        return _CO_SOFT[text]
    return _CO_SOUND[text]


@functools.lru_cache(maxsize=65536)
def _coarse_word(word: str) -> str:
    """One word's loose reading (see `coarse`), in two regex passes."""
    word = _CO_SPELL.sub(_co_spell, word).translate(_VOWEL_CLASSES)
    return _CO_RUNS.sub(lambda r: r.group(1) or r.group(2), word)


def coarse(words: Sequence[str]) -> str:
    """A loose reading aloud for puns, word by word: consonant spellings merged, a final silent e dropped, each
    run of vowels one vowel of three classes (a e / i y / o u: unstressed vowels sound alike), doubled letters
    one, across the word breaks too ("Ella Vator" and "elevator" both read "alavatar")."""
    out = ""
    for key in map(_coarse_word, words):
        if out and key and (out[-1] == key[0] or (out[-1] in "aio" and key[0] in "aio")):
            key = key[1:]
        out += key
    return out


# ---------------------------------------------------------------- rules


def judge(words: Sequence[str]) -> Reason | None:
    """The model's verdict on a whole person name (its words, given name first, titles dropped): two to four
    words; a longer value is a title, a firm or a sentence, which the bundled rules judge."""
    if not 2 <= len(words) <= 4:
        return None
    m = model()
    if all(len(w) == 1 for w in words):
        return Reason(LETTERS_ONLY, " ".join(words), f"{len(words)} single letters")
    hit = _vulgar_word(m, words)
    if hit is not None:
        return hit
    if not all(w.isalpha() for w in words):
        return None
    if len(words) == 2 and words[0] == words[1] and m.weight(words[0]) < VULGAR_NAME_MAX:
        return Reason(REPEATED_NON_NAME, words[0], m.scores(words[0]))
    hit = _english_words(m, words)
    if hit is not None:
        return hit
    return _pun(m, words)


# Particles of surnames (van Loon, de la Cruz, bin Laden) are words of no name on their own.
PARTICLES: Final = frozenset({"van", "von", "de", "der", "den", "la", "le", "da", "di", "del", "della", "dos", "du",
                              "bin", "bint", "al", "el", "ben", "ter", "ten", "st", "mac", "mc", "o"})


def _english_words(m: NameModel, words: Sequence[str]) -> Reason | None:
    if len(words) > 3 or any(w in PARTICLES for w in words):
        return None
    margin = 0
    last = len(words) - 1
    for i, w in enumerate(words):
        size = m.words.get(w)
        if size is None:
            return None
        own, other = (m.given, m.surname) if i < last else (m.surname, m.given)
        name = max(own.get(w, 0), other.get(w, 0) - ROLE_SWAP)
        margin += _WORD_WEIGHT[size] - name
    if margin < ENGLISH_MARGIN:
        return None
    shown = max(words, key=lambda w: _WORD_WEIGHT[m.words[w]] - m.weight(w))
    return Reason(ENGLISH_WORDS, " ".join(words),
                  f"word-over-name margin {margin / 10:.1f} >= {ENGLISH_MARGIN / 10:.1f}; {shown}: {m.scores(shown)}")


_NO_VOWELS: Final = str.maketrans("", "", "aeiouy")


_K_FAMILY: Final = re.compile(r"ck|c|q|k")


def _plain(word: str) -> str:
    """A spelling with the k sounds written alike and doubled letters one: Kunt = cunt, Fukkink = fucking."""
    return _RUNS.sub(r"\1", _K_FAMILY.sub("k", word))


def _respelled(word: str, vulgar: str) -> bool:
    """Whether a sound-alike is spelled to hide the vulgar word, as an obfuscation is (Azz, Phuk, Fvck, Titz,
    Nutz: a z for an s, ph for f, v for u), and not only in the ways real names of other languages spell their
    sounds (Kunt, Kok, Dik, Fukkink: a k for c; Bubb, Titi, Aas, Tiit, Niger: other vowels or doubled letters).
    A vulgar word of 6+ letters with other vowels counts too (Basterd)."""
    w, v = _plain(word), _plain(vulgar)
    if w == v:
        return False
    if w.translate(_NO_VOWELS) != v.translate(_NO_VOWELS):
        return True
    return len(vulgar) >= 6


def _vulgar_word(m: NameModel, words: Sequence[str]) -> Reason | None:
    """A word spelled to sound vulgar (alone, or joined to a common word), that no one bears as a name."""
    for w in words:
        if len(w) < 3 or w in m.words or (w not in m.given and w not in m.surname and is_known(w)):
            continue  # a name the tables do not hold is one no vulgar reading fits (build_name_model keeps those)
        found = m.vulgar.get(_vulgar_sound(w))
        alone = found is not None and _respelled(w, found)
        how = f"reads as {found!r}" if found else ""
        if found is None:
            found, how = _vulgar_compound(m, w)
            alone = found is not None
        if found is None:
            continue
        if alone and m.weight(w) < VULGAR_NAME_MAX:
            return Reason(VULGAR_SOUND, w, f"{how}; {m.scores(w)}")
        others = [o for o in words if o != w]
        if any(o in INSULT_WORDS or m.vulgar.get(_vulgar_sound(o)) for o in others):
            return Reason(VULGAR_SOUND, w, f"{how}, next to an insult; {m.scores(w)}")
    return None


_HEAD_LENGTHS: Final = range(2, 9)


def _vulgar_compound(m: NameModel, w: str) -> tuple[str | None, str]:
    """A vulgar word or sound-alike joined to an insult word (Azwipe, Fukyu, Dikweed), or a respelled one of 4+
    letters joined to a very common English word. A head that is itself an English word (but, as) or a tail that
    is a mere name ending (son, er, nick) does not count: Buttrill, Asprey, Kumnick and Koomson are surnames.
    Only a word whose reading starts with a vulgar word's reading is split (most words: a few dict look-ups)."""
    sound = _vulgar_sound(w)
    if not any(sound[:n] in m.vulgar for n in _HEAD_LENGTHS if n < len(sound)):
        return None, ""
    for i in range(2, len(w) - 1):
        tail = w[i:]
        insult = tail in INSULT_WORDS
        size = m.words.get(tail)
        if not insult and (size is None or size > 20 or len(tail) < 3 or i < 4):
            continue
        head = w[:i]
        if head in m.words:
            continue
        found = m.vulgar.get(_vulgar_sound(head))
        if found is None:
            continue
        if insult and (len(head) >= 3 or len(tail) >= 3):
            return found, f"{head!r} reads as {found!r}, then {tail!r}"
        if len(head) >= 4 and _respelled(head, found) and size is not None:
            return found, f"{head!r} reads as {found!r}, then {tail!r}"
    return None, ""


@functools.cache
def _known_hashes() -> array.array[int]:
    """CRC-32 of every word the sources hold as a given name or a surname, sorted (names_known.bin, 1 MB): a
    membership test in one binary search, without building 250,000 strings at load."""
    table = array.array("I")
    table.frombytes((WORDLISTS / "names_known.bin").read_bytes())
    if sys.byteorder == "big":
        table.byteswap()  # the file is little-endian
    return table


def is_known(word: str) -> bool:
    """Whether some source holds the word as a name (a chance CRC match, about 1 word in 17,000, only ever
    spares a name from the vulgar and pun rules)."""
    table = _known_hashes()
    h = zlib.crc32(word.encode())
    i = bisect.bisect_left(table, h)
    return i < len(table) and table[i] == h


@functools.cache
def known_surnames() -> dict[str, int]:
    """Every surname of the sources with its weight (surnames_known.txt), read on the first pun reading only."""
    out: dict[str, int] = {}
    for line in _lines("surnames_known.txt"):
        weight, _, rest = line.partition("\t")
        out.update(dict.fromkeys(rest.split(), int(weight)))
    return out


def _pun(m: NameModel, words: Sequence[str]) -> Reason | None:
    first, last = words[0], words[-1]
    if len(words) > 3 or len(last) < 3 or first not in m.pun_givens or is_known(last):
        return None
    key = coarse(words)
    word = m.puns.get(key)
    if word is None or word in words or any(coarse([w]) == key for w in words):
        return None
    return Reason(PUN_READING, " ".join(words), f"reads aloud as {word!r}; log10 US bearers: {first} as given name "
                  f"{m.given[first] / 10:.1f}; {last}: a name of no source")
