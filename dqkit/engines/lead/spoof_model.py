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
- **vulgar word** (second pass): a word of the LDNOOBW vulgar word lists of 16 languages where it is no
  plausible name: as a given name of 6+ letters alone ("Arschloch"-like compounds), elsewhere next to an insult
  or another vulgar word; a name that written together is a listed vulgar word or phrase ("Hija Puta"). A
  listed word that is a name of 100+ US bearers in its role, or of some culture's list, is not read (Regina,
  Concha, Connard as a surname);
- **insult word** (second pass): a WordNet noun for a stupid person as a given name that is no name
  ("Nincompoop", "Dimwit");
- **pun reading of real names** (second pass): a given name and a surname that is an English word spelled at
  the end of what they read aloud as, closely ("Penny Less" = penniless, "Dinah Mite"), or two words that are a
  WordNet phrase ("Bobby Pin"), when fewer than PAIR_MAX people are expected to bear the pair;
- **pun read aloud (CMUdict)** (issue 32, session 5): a given name + a surname that read aloud exactly, by the CMU
  Pronouncing Dictionary, as a common English word or a dictionary phrase spelled otherwise ("Lee King" =
  leaking), when fewer than SOUND_PAIR_MAX US people are expected to bear the pair (the reading spelled as the name
  written together, "Jo King" = joking, weighs with PAIR_MAX); a table prepared at build time, one look-up a name;
  since session 6 the table also reads pairs as phrases of the Moby Thesaurus II ("Gene Pool"), weighed with the
  stricter MOBY_PAIR_MAX, and a phrase reads a pair only when the name spells it or a word break falls inside a
  name ("Noah Gain" = know again; Lillie White, Matt Byrne sound word for word like "lily white", "mat burn");
- **repeated non-name**: the same word as given name and surname when it is no given name ("Tbd Tbd");
- **letters only**: a name made of single letters ("N/A N/A").

A real name of a culture the data covers is not flagged however it collides with English (Phuc, Fuk, Anal,
Kuntal, Dikshit, Shittu): the name weights protect it. Every flag carries a `Reason` (rule, word, scores) for
the answer's VALUE, the output columns and the report, so an analyst can overrule it.

Tables are prepared at build time (tests/lead_rules/build_name_model.py) and only read here, in one pass of
`dict.fromkeys` per line: loading takes a few tens of milliseconds. Thresholds were tuned on the development
split of tests/lead_rules/eval/spoof_fresh.csv and on real names whose words were hidden from the model
(tests/lead_rules/eval/dev_real_names.csv), or set from population figures of the name sources (PAIR_MAX,
LISTED_ALONE_MIN), never on the reported test split or the real-name evaluation set.
"""

from __future__ import annotations

import array
import dataclasses
import functools
import itertools
import math
import re
import sys
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from dqkit.engines.lead import spoof_heads

WORDLISTS: Final = Path(__file__).resolve().parent / "wordlists"

# Rules, as Reason.rule.
ENGLISH_WORDS: Final = "English words, no name"
VULGAR_SOUND: Final = "vulgar sound-alike"
VULGAR_WORD: Final = "vulgar word"
INSULT_WORD: Final = "insult word"
PUN_READING: Final = "pun reading"
SOUNDS_AS: Final = "pun read aloud (CMUdict)"
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
PUN_SURNAME_MIN: Final = 4  # a surname of 3 letters is a weak word (Chi, Lee, Ray): Maria Chi is a name
# A vulgar word of 6+ letters is also read by its consonants alone when they are this many (Basterd = bastard).
SKELETON_MIN: Final = 5
# A given name + a surname of the sources that read aloud together as a common word or phrase ("Penny Less",
# "Herb Garden") flag when fewer than PAIR_MAX US people are expected to bear the pair (given-name bearers x
# surname bearers / US people, the names taken as independent): "Lee King" (about 480) and "Rose Bush" (150)
# are people. PAIR_MAX was set from the population the flags cost, not from a spoof set: all the pairs flagged
# together are expected to be borne by 0.04 in 1,000 US people (build_name_model.py sums it), a tenth of the
# false-positive goal (1 in 2,000).
PAIR_MAX: Final = 100.0
# A given name + a surname that read aloud exactly as a common word or a dictionary phrase by the CMU Pronouncing
# Dictionary, spelled otherwise ("Lee King" = leaking: about 480 US people expected), flag under this many
# expected bearers. Tuned on the dev split of spoof_fresh.csv (Lee King needs 500+); what all the pairs flagged
# under it cost together is printed by tests/lead_rules/build_sound_puns.py: about 0.03 in 1,000 US people.
SOUND_PAIR_MAX: Final = 1000.0
# A pair that only a phrase of the Moby Thesaurus II reads (issue 32, session 6: "Gene Pool"; a thesaurus holds
# looser phrases than a dictionary, "tear along": Tara Long, 130 expected US bearers, must not flag) flags under
# this many expected bearers, spelled or sounded. Tuned on the dev split of spoof_fresh.csv: Gene Pool is expected
# to be borne by about 6 people, this is the decade above; all the pairs it flags are expected to be borne by
# about 0.001 in 1,000 US people (build_sound_puns.py prints it).
MOBY_PAIR_MAX: Final = 10.0
US_PEOPLE_WEIGHT: Final = 85  # 10 x log10(330 million)
# A word of a vulgar word list flags alone as a given name of this many letters (see _listed_vulgar).
LISTED_ALONE_MIN: Final = 6
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


class _WithBit:
    """The words of a packed table (NameModel.info) that have one bit: membership, iteration and size, shared by
    the set view (WordsWith) and the mapping view (Packed)."""

    __slots__ = ("_bit", "_info")
    _info: dict[str, int]
    _bit: int

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and bool(self._info.get(word, 0) & self._bit)

    def __iter__(self) -> Iterator[str]:
        bit = self._bit
        return (w for w, v in self._info.items() if v & bit)

    def __len__(self) -> int:
        bit = self._bit
        return sum(1 for v in self._info.values() if v & bit)


class WordsWith(_WithBit, AbstractSet[str]):
    """The words of NameModel.info that have a bit: a set made of the packed table at no cost."""

    __slots__ = ()

    def __init__(self, info: dict[str, int], bit: int) -> None:
        self._info, self._bit = info, bit


class Packed(_WithBit, Mapping[str, int]):
    """A table of NameModel.info as a mapping: the words with a bit -> the number held at `shift` (a weight, or
    with `sizes` the SCOWL size its index stands for). model() reads the packed table only, not these tables."""

    __slots__ = ("_mask", "_shift", "_sizes")

    def __init__(self, info: dict[str, int], bit: int, shift: int, mask: int, sizes: tuple[int, ...] = ()) -> None:
        self._info, self._bit, self._shift, self._mask, self._sizes = info, bit, shift, mask, sizes

    def _value(self, bits: int) -> int:
        value = bits >> self._shift & self._mask
        return self._sizes[value] if self._sizes else value

    def __getitem__(self, word: str) -> int:
        bits = self._info.get(word, 0) if isinstance(word, str) else 0
        if not bits & self._bit:
            raise KeyError(word)
        return self._value(bits)

    def get(self, word: str, default: Any = None) -> Any:  # (Mapping's get goes through a KeyError)
        bits = self._info.get(word, 0)
        return self._value(bits) if bits & self._bit else default


@dataclass(frozen=True, slots=True)
class NameModel:
    given: Mapping[str, int]  # word -> 10 x log10 US bearers as a given name (faker and hand lists count 40)
    surname: Mapping[str, int]  # same, as a surname
    cultures: dict[str, str]  # word -> cultures whose lists hold it (words the rules may flag)
    words: Mapping[str, int]  # English word -> SCOWL size
    vulgar: dict[str, str]  # _vulgar_sound key -> the vulgar word
    puns: dict[str, str]  # _coarse key of a common English word of 6+ letters -> the word
    pun_givens: frozenset[str]  # given names of 1,000+ bearers whose reading starts some pun word's (build time)
    vulgar_words: dict[str, str] = dataclasses.field(default_factory=dict)  # vulgar word -> its languages
    vulgar_phrases: dict[str, str] = dataclasses.field(default_factory=dict)  # phrase written together -> same
    insults: frozenset[str] = frozenset()  # nouns for a stupid person (WordNet)
    vulgar_skeletons: dict[str, str] = dataclasses.field(default_factory=dict)  # consonants of a long one
    readings: dict[str, str] = dataclasses.field(default_factory=dict)  # tight key -> word or phrase (words_joined)
    reading_givens: frozenset[str] = frozenset()  # given names whose tight key starts some reading's
    phrases: frozenset[str] = frozenset()  # WordNet phrases of two words ("party_pooper")
    soundalike: frozenset[str] = frozenset()  # names of the sources that some vulgar reading fits (build time)
    vulgar_heads: frozenset[str] = frozenset()  # the first two letters of each vulgar reading
    skeleton_heads: frozenset[str] = frozenset()  # the first letter of each key of vulgar_skeletons
    vulgar_prefixes: frozenset[str] = frozenset()  # every head of 2+ letters of each vulgar reading of 2-8 letters
    # heads of 3-4 letters that may start a vulgar reading, of a word of 3-5 letters / of 6+ (spoof_heads), for
    # _may_sound_vulgar (judge_slow's gate): empty in model(), whose judge asks may_read; then _prepared_heads()
    head_short: frozenset[str] = frozenset()
    head_long: frozenset[str] = frozenset()
    vulgar_starts: frozenset[str] = frozenset()  # every head of every key of vulgar
    # word -> what every table says of it, packed in one int (`pack`, the bits below): the rules ask one dict per
    # word where they asked up to eight tables (each a cache miss or two after the bundled rules ran). model()
    # reads it from wordlists/name_bits.txt (prepared at build time) with `info_of` naming the tables it holds and
    # tail_ends; a model of other tables (dataclasses.replace) packs its own here.
    info: dict[str, int] = dataclasses.field(default_factory=dict, repr=False, compare=False)
    info_of: tuple[int, ...] = dataclasses.field(default=(), repr=False, compare=False)
    # the last three letters of each tail (all of a shorter one) -> a bit for the length of each tail ending so:
    # the compound split looks up only the split points where a tail may be (most words: none)
    tail_ends: dict[str, int] = dataclasses.field(default_factory=dict, repr=False, compare=False)
    # every word some table holds as a name, an English word, an insult or a pun's given name (a view of info)
    seen: WordsWith = dataclasses.field(init=False, repr=False, compare=False)
    # words a compound's tail may be: insult words, and English words of SCOWL size 10-20 of 3+ letters (a view)
    tails: WordsWith = dataclasses.field(init=False, repr=False, compare=False)
    # a match when some key of `vulgar` of 2-8 letters starts a reading and is shorter: where the compound split
    # begins (one regex call for the loop over the reading's heads that it replaces)
    vulgar_start: re.Pattern[str] = dataclasses.field(init=False, repr=False, compare=False)
    # the last letter of each key of vulgar_skeletons: a reading that ends otherwise fits none
    skeleton_ends: frozenset[str] = dataclasses.field(init=False, repr=False, compare=False)
    # matches from a word's start when its reading may fit the sound-alike rule (a key starts it, or its consonants
    # are a skeleton; spoof_heads.reading_gate): judge reads only such words, _may_sound_vulgar is the reference
    may_read: re.Pattern[str] = dataclasses.field(init=False, repr=False, compare=False)
    # a word may_read let through by its start is read only when its whole reading may be a key, or a tail that
    # ends it follows a head whose reading may be a key (key_whole, matched to the word or the head): _may_fit
    key_whole: re.Pattern[str] = dataclasses.field(init=False, repr=False, compare=False)
    as_they_are: re.Pattern[str] = dataclasses.field(init=False, repr=False, compare=False)  # (reading_gate's READ)

    def __post_init__(self) -> None:
        """The fields below the tables follow them (a copy made with dataclasses.replace gets its own)."""
        if not self.info or self.info_of != table_ids(self):
            info = pack(self)
            object.__setattr__(self, "info", info)
            object.__setattr__(self, "info_of", table_ids(self))
            object.__setattr__(self, "tail_ends", tail_ends(info))
        object.__setattr__(self, "seen", WordsWith(self.info, SEEN))
        object.__setattr__(self, "tails", WordsWith(self.info, TAIL))
        keys = sorted((k for k in self.vulgar if len(k) in _HEAD_LENGTHS), key=lambda k: (-len(k), k))
        object.__setattr__(self, "vulgar_start", re.compile(f"(?:{'|'.join(map(re.escape, keys))})(?=.)"
                                                            if keys else "(?!)", re.DOTALL))
        object.__setattr__(self, "skeleton_ends", frozenset(k[-1:] for k in self.vulgar_skeletons))
        object.__setattr__(self, "may_read", re.compile(spoof_heads.reading_gate(self.vulgar, self.vulgar_skeletons,
                                                                                INSULT_WORDS)))
        object.__setattr__(self, "key_whole", re.compile(spoof_heads.reading_is(self.vulgar)))
        object.__setattr__(self, "as_they_are", re.compile(spoof_heads.read_as_they_are(self.vulgar_skeletons)))

    def weight(self, word: str) -> int:
        bits = self.info.get(word, 0)  # (the packed table: given, surname and words may be views of it)
        return max(bits & _WEIGHT, bits >> SURNAME_SHIFT & _WEIGHT)

    def scores(self, word: str) -> str:
        """A word's scores, as shown in a Reason."""
        bits = self.info.get(word, 0)
        size = _SIZES[bits >> SIZE_SHIFT & 15]
        culture = self.cultures.get(word)
        return (f"log10 US bearers: given {_TENTHS[bits & _WEIGHT]}, surname {_TENTHS[bits >> SURNAME_SHIFT & _WEIGHT]}"
                f", {f'English word size {size}' if size else 'no English word'}"
                f"{f', name in {culture}' if culture else ''}")


# A number of tenths as a Reason shows it (f"{x / 10:.1f}"), prepared for the weights (0-127) and margins.
_TENTHS: Final = tuple(f"{x / 10:.1f}" for x in range(256))


def _tenths(x: int) -> str:
    return _TENTHS[x] if 0 <= x < len(_TENTHS) else f"{x / 10:.1f}"


def _expected(weight: int) -> str:
    """How many US people are expected to bear a pair of names of this summed weight, as a Reason shows it."""
    return _EXPECTED[weight] if 0 <= weight < len(_EXPECTED) else f"{10 ** ((weight - US_PEOPLE_WEIGHT) / 10):.2g}"


_EXPECTED: Final = tuple(f"{10 ** ((w - US_PEOPLE_WEIGHT) / 10):.2g}" for w in range(256))
_ENGLISH_MARGIN_SHOWN: Final = _tenths(ENGLISH_MARGIN)
_VULGAR_NAME_MAX_SHOWN: Final = _tenths(VULGAR_NAME_MAX)
_PAIR_MAX_SHOWN: Final = f"{PAIR_MAX:g}"
_LIMITS_SHOWN: Final = {limit: f"{limit:g}" for limit in (PAIR_MAX, SOUND_PAIR_MAX, MOBY_PAIR_MAX)}


# The bits of NameModel.info: a word's weight as a given name and as a surname (7 bits each, 0 when absent), the
# index of its SCOWL size in _SIZES (0: no English word), and one bit a table.
SURNAME_SHIFT: Final = 7
_WEIGHT: Final = 127
SIZE_SHIFT: Final = 14
_SIZES: Final = (0, *_WORD_WEIGHT)  # index -> SCOWL size
_SIZE_WEIGHTS: Final = (0, *_WORD_WEIGHT.values())  # index -> its weight
IN_GIVEN: Final = 1 << 18
IN_SURNAME: Final = 1 << 19
SEEN: Final = 1 << 20  # NameModel.seen
SOUNDALIKE: Final = 1 << 21
PUN_GIVEN: Final = 1 << 22
READING_GIVEN: Final = 1 << 23
INSULT: Final = 1 << 24
VULGAR: Final = 1 << 25  # a word of vulgar_words
VULGAR_HEAD: Final = 1 << 26  # a head (1+ letters) of a key of vulgar_words or vulgar_phrases
PHRASE_FIRST: Final = 1 << 27  # the first word of some WordNet phrase of `phrases`
PHRASE_LAST: Final = 1 << 28
SOUND_FIRST: Final = 1 << 29  # the given name of some pair of sound_puns.txt
SOUND_LAST: Final = 1 << 30
TAIL: Final = 1 << 31  # NameModel.tails
ENGLISH: Final = 15 << SIZE_SHIFT  # (no bit of its own: a size index of 1+)
NAMED: Final = IN_GIVEN | IN_SURNAME


def table_ids(m: NameModel) -> tuple[int, ...]:
    """Which tables `info` was packed from (their identities: a copy of the model with other tables differs)."""
    return (id(m.given), id(m.surname), id(m.words), id(m.soundalike), id(m.insults), id(m.pun_givens),
            id(m.reading_givens), id(m.vulgar_words), id(m.vulgar_phrases), id(m.phrases))


def pack(m: NameModel) -> dict[str, int]:
    """Every word some table holds -> its bits (see above). Build time (build_name_bits.py writes them) or a copy
    of the model with other tables (spoof_eval.hidden_model): a few hundred ms."""
    out: dict[str, int] = {}

    def add(words: object, bit: int) -> None:
        for w in words:  # type: ignore[attr-defined]
            out[w] = out.get(w, 0) | bit

    for w, weight in m.given.items():
        assert 0 <= weight < 1 << SURNAME_SHIFT, (w, weight)
        out[w] = out.get(w, 0) | weight | IN_GIVEN
    for w, weight in m.surname.items():
        assert 0 <= weight < 1 << SURNAME_SHIFT, (w, weight)
        out[w] = out.get(w, 0) | weight << SURNAME_SHIFT | IN_SURNAME
    for w, size in m.words.items():
        out[w] = out.get(w, 0) | _SIZES.index(size) << SIZE_SHIFT
    add(frozenset().union(m.given, m.surname, m.words, m.soundalike, m.insults, m.pun_givens, m.reading_givens),
        SEEN)
    add(INSULT_WORDS.union(w for w, size in m.words.items() if size <= _COMMON_TAIL_SIZE and len(w) >= 3), TAIL)
    add(m.soundalike, SOUNDALIKE)
    add(m.pun_givens, PUN_GIVEN)
    add(m.reading_givens, READING_GIVEN)
    add(m.insults, INSULT)
    add(m.vulgar_words, VULGAR)
    add({k[:j] for k in (*m.vulgar_words, *m.vulgar_phrases) for j in range(1, len(k) + 1)}, VULGAR_HEAD)
    pairs = [p.split("_") for p in m.phrases]
    assert all(len(p) == 2 for p in pairs)
    add({p[0] for p in pairs}, PHRASE_FIRST)
    add({p[1] for p in pairs}, PHRASE_LAST)
    pairs = [p.split("_") for p in _sound_puns()[0]]
    assert all(len(p) == 2 for p in pairs)
    add({p[0] for p in pairs}, SOUND_FIRST)
    add({p[1] for p in pairs}, SOUND_LAST)
    return out


def tail_ends(info: dict[str, int]) -> dict[str, int]:
    """NameModel.tail_ends of the words of `info` with the TAIL bit (tails are 2+ letters long)."""
    out: dict[str, int] = {}
    for w, bits in info.items():
        if bits & TAIL:
            end = w[-3:]
            out[end] = out.get(end, 0) | 1 << len(w)
    return out


def _lines(name: str) -> list[str]:
    text = (WORDLISTS / name).read_text(encoding="utf-8")
    return [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


@functools.cache
def model() -> NameModel:
    """The tables, read once per process: the per-word tables as views of the packed one (name_bits.txt)."""
    keys: list[list[str]] = []
    values: list[itertools.repeat[int]] = []
    ends: dict[str, int] = {}
    for line in _lines("name_bits.txt"):
        bits, _, rest = line.partition("\t")
        if bits[0] == "e":  # tail_ends: "e<lengths>\tends"
            ends.update(dict.fromkeys(rest.split(" "), int(bits[1:])))
            continue
        keys.append(rest.split(" "))
        values.append(itertools.repeat(int(bits), len(keys[-1])))
    info = dict(zip(itertools.chain.from_iterable(keys), itertools.chain.from_iterable(values), strict=True))
    cultures, soundalike = _cultures()
    return _assemble(Packed(info, IN_GIVEN, 0, 127), Packed(info, IN_SURNAME, SURNAME_SHIFT, 127), cultures,
                     Packed(info, ENGLISH, SIZE_SHIFT, 15, _SIZES), soundalike, info, ends)


def _cultures() -> tuple[dict[str, str], frozenset[str]]:
    """(word -> the cultures whose lists hold it, the soundalike names) of name_model.txt."""
    cultures: dict[str, str] = {}
    soundalike: frozenset[str] = frozenset()
    for line in _lines("name_model.txt"):
        head, _, rest = line.partition("\t")
        kind, _, arg = head.partition(" ")
        if kind == "soundalike":
            soundalike = frozenset(rest.split())
        elif kind == "culture":
            label = arg.replace("_", " ")
            for w in rest.split():
                cultures[w] = f"{cultures[w]}, {label}" if w in cultures else label
    return cultures, soundalike


def source_model() -> NameModel:
    """The model made from the tables as written (name_model.txt, english_sizes.txt) and packed here, not read
    from name_bits.txt: what build_name_bits.py writes that file from (test_spoof_model checks they agree)."""
    given: dict[str, int] = {}
    surname: dict[str, int] = {}
    for line in _lines("name_model.txt"):
        head, _, rest = line.partition("\t")
        kind, _, arg = head.partition(" ")
        if kind == "given":
            given.update(dict.fromkeys(rest.split(), int(arg)))
        elif kind == "surname":
            surname.update(dict.fromkeys(rest.split(), int(arg)))
    words: dict[str, int] = {}
    for line in _lines("english_sizes.txt"):
        size, _, rest = line.partition("\t")
        words.update(dict.fromkeys(rest.split(), int(size)))
    cultures, soundalike = _cultures()
    return _assemble(given, surname, cultures, words, soundalike, {}, {})


def _assemble(given: Mapping[str, int], surname: Mapping[str, int], cultures: dict[str, str],
              words: Mapping[str, int], soundalike: frozenset[str], info: dict[str, int],
              ends: dict[str, int]) -> NameModel:
    """The model of these per-word tables and the other files' (`info` packed from these very tables, or empty)."""
    vulgar = {_vulgar_sound(w): w for w in (ln.strip() for ln in _lines("vulgar_sounds.txt"))}
    puns: dict[str, str] = {}
    pun_givens: frozenset[str] = frozenset()
    for line in _lines("pun_words.txt"):
        keys, _, ws = line.partition("\t")
        if keys == "givens":
            pun_givens = frozenset(ws.split())
        else:
            puns.update(zip(keys.split(), ws.split(), strict=True))
    vulgar_words: dict[str, str] = {}
    vulgar_phrases: dict[str, str] = {}
    for line in _lines("vulgar_languages.txt"):
        head, _, rest = line.partition("\t")
        kind, _, langs = head.partition(" ")
        (vulgar_words if kind == "word" else vulgar_phrases).update(dict.fromkeys(rest.split(),
                                                                                   langs.replace("_", " ")))
    readings: dict[str, str] = {}
    reading_givens: frozenset[str] = frozenset()
    phrases: frozenset[str] = frozenset()
    for line in _lines("pun_phrases.txt"):
        keys, _, rest = line.partition("\t")
        if keys == "givens":
            reading_givens = frozenset(rest.split())
        elif keys == "phrases":
            phrases = frozenset(rest.split())
        else:
            readings.update(zip(keys.split(), rest.split(), strict=True))
    skeletons = {k.translate(_NO_VOWELS): w for k, w in vulgar.items()
                 if len(w) >= 6 and len(k.translate(_NO_VOWELS)) >= SKELETON_MIN}
    insults = frozenset(_lines("insult_words.txt"))
    ids = (id(given), id(surname), id(words), id(soundalike), id(insults), id(pun_givens), id(reading_givens),
           id(vulgar_words), id(vulgar_phrases), id(phrases))  # as table_ids
    return NameModel(given, surname, cultures, words, vulgar, puns, pun_givens, vulgar_words, vulgar_phrases,
                     insults, skeletons, readings, reading_givens, phrases,
                     soundalike, frozenset(k[:2] for k in vulgar), frozenset(k[:1] for k in skeletons),
                     _prefixes(vulgar), frozenset(), frozenset(), spoof_heads.vulgar_starts(vulgar), info,
                     ids if info else (), ends)


def _prefixes(vulgar: dict[str, str]) -> frozenset[str]:
    """Every head of 2+ letters of the readings of 2-8 letters: _vulgar_compound stops at the first head none has."""
    return frozenset(k[:n] for k in vulgar if len(k) in _HEAD_LENGTHS for n in range(2, len(k) + 1))


# ---------------------------------------------------------------- readings

_RUNS: Final = re.compile(r"(.)\1+")
_DOUBLED: Final = re.compile(r"(.)\1")  # the search for a run, in half the time of _RUNS's
_VOWEL: Final = frozenset("aeiouy")
_VOWEL_H: Final = re.compile(r"(?<=[aeiou])h(?![aeiou])")


def _vulgar_sound(word: str) -> str:
    """How a word reads for the sound-alike rule: Phuk = fuk = fuck, Azz = as = ass, Fvck = fuk, Kunt = cunt.
    Plain string replacements, each only where its letters are (a regex pass per rule cost 5 us a word): ph = f,
    ck / q / c = k, x = ks, z = s,
    oo = u, ee = i, a y after the first letter = i, an h after a vowel and before none dropped (fuhk), v = u in a
    word without vowels (Fvck, Cvnt), doubled letters one."""
    if "v" in word and not (_VOWEL & set(word)):
        word = word.replace("v", "u")
    if "ph" in word:
        word = word.replace("ph", "f")
    if "c" in word:
        word = word.replace("c", "k")  # ck reads kk, made one with the other doubled letters
    if "q" in word:
        word = word.replace("q", "k")
    if "x" in word:
        word = word.replace("x", "ks")
    if "z" in word:
        word = word.replace("z", "s")
    if "oo" in word:
        word = word.replace("oo", "u")
    if "ee" in word:
        word = word.replace("ee", "i")
    if word.find("y", 1) > 0:
        word = word[0] + word[1:].replace("y", "i")
    if "h" in word and ("ah" in word or "eh" in word or "ih" in word or "oh" in word or "uh" in word):
        word = _VOWEL_H.sub("", word)  # a search for the pairs first: most h follow a consonant (sh, ch, th)
    return _undouble(word)


def _undouble(text: str) -> str:
    """Doubled letters made one; most names have none, and a search is a tenth of a substitution's cost."""
    return _RUNS.sub(_first_letter, text) if _DOUBLED.search(text) else text


def _first_letter(m: re.Match[str]) -> str:
    return m[1]


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


_TIGHT_RULES: Final = (("ph", "f"), ("ck", "k"), ("ch", "k"), ("gh", "g"), ("q", "k"), ("c", "k"), ("z", "s"),
                       ("x", "ks"), ("y", "i"), ("w", "u"))


def tight(words: Sequence[str]) -> str:
    """A close reading aloud of a whole name, for puns made of real names: sound-alike consonant spellings merged
    (as spoof._sound), an h after a vowel and before none dropped (Dinah = dina), vowels kept, doubled letters one
    across the word breaks too ("Penny Less" and "penniless" both read "peniles")."""
    text = "".join(words)
    for a, b in _TIGHT_RULES:
        if a in text:
            text = text.replace(a, b)
    if "h" in text:
        text = _VOWEL_H.sub("", text)
    return _undouble(text)


# ---------------------------------------------------------------- rules


def judge(words: Sequence[str]) -> Reason | None:
    """The model's verdict on a whole person name (its words, given name first, titles dropped): two to four
    words; a longer value is a title, a firm or a sentence, which the bundled rules judge. Written for few
    operations on a name no source knows (the common case of a unique lead): one look-up of NameModel.info a word
    tells which rules can read it (the rules in `judge_slow`'s order, each called only when its own first tests
    pass on those bits), then a reading of a word no table holds when its head may start a vulgar one."""
    n = len(words)
    if n < 2 or n > 4:
        return None
    m = model()
    together = "".join(words)
    if len(together) <= n and max(map(len, words)) == 1:  # (a longer name has a word of 2+ letters)
        return Reason(LETTERS_ONLY, " ".join(words), f"{n} single letters")
    get, may_read = m.info.get, m.may_read.match
    bits = list(map(get, words, _ZEROS))
    ored = 0
    for w, v in zip(words, bits, strict=True):  # the sound-alike rule (_vulgar_word)
        ored |= v
        if len(w) < 3:
            continue
        if not v & SEEN:
            named = True
        elif v & ENGLISH:
            continue
        else:
            named = not v & SOUNDALIKE
            if named and v & NAMED:
                continue
        if named:  # (_vulgar_word asks _may_sound_vulgar: these let fewer through, none it reads)
            start = may_read(w)
            if start is None or (start.lastgroup is None and not _may_fit(m, w)):
                continue
        hit = _read_vulgar(m, w, named, words)
        if hit is not None:
            return hit
    first, last = words[0], words[-1]
    a, b = bits[0], bits[-1]
    if (a & VULGAR_HEAD or not first or ored & VULGAR) and (together in m.vulgar_phrases or together in
                                                          m.vulgar_words or ored & VULGAR):
        hit = _listed_vulgar(m, words)
        if hit is not None:
            return hit
    if not together.isalpha():
        return None
    if n == 2 and first == last and _role_weight(m, words, 0)[0] < VULGAR_NAME_MAX:
        return Reason(REPEATED_NON_NAME, first, m.scores(first))
    phrase = n == 2 and a & PHRASE_FIRST and b & PHRASE_LAST
    if n == 2 and not a & SEEN:
        return _pun_pair(m, words) if phrase else None
    if a & ENGLISH and b & ENGLISH and n <= 3 and bits[1] & ENGLISH:  # _english_words on the bits
        margin = _english_margin(bits)
        if margin >= ENGLISH_MARGIN and PARTICLES.isdisjoint(words):
            return _english_reason(m, words, margin)
    for v in bits[:-1]:
        if v & INSULT:
            hit = _insult(m, words)
            if hit is not None:
                return hit
            break
    if a & PUN_GIVEN and n <= 3 and len(last) >= 3 and not b & NAMED and not is_known(last):
        hit = _pun_read(m, words)
        if hit is not None:
            return hit
    if n != 2:
        return None
    if phrase or (a & READING_GIVEN and len(last) >= PUN_SURNAME_MIN and b & ENGLISH):
        hit = _pun_pair(m, words)
        if hit is not None:
            return hit
    return sounds_as(first, last) if a & SOUND_FIRST and b & SOUND_LAST else None


_ZEROS: Final = (0, 0, 0, 0)  # judge's default of each word's bits (map stops at the shorter)


def _english_margin(bits: Sequence[int]) -> int:
    """_english_words's margin from the packed bits of words that are all English words."""
    margin = 0
    last = len(bits) - 1
    for i, v in enumerate(bits):
        given, surname = v & 127, v >> SURNAME_SHIFT & 127
        name = max(given, surname - ROLE_SWAP) if i < last else max(surname, given - ROLE_SWAP)
        margin += _SIZE_WEIGHTS[v >> SIZE_SHIFT & 15] - name
    return margin


def judge_slow(words: Sequence[str]) -> Reason | None:
    """`judge` as written before the packed bits (NameModel.info): each rule asks its own tables. Kept as the
    reference the fast path is tested against (test_spoof_model), not called by the engine."""
    n = len(words)
    if n < 2 or n > 4:
        return None
    m = model()
    if max(map(len, words)) == 1:
        return Reason(LETTERS_ONLY, " ".join(words), f"{n} single letters")
    hit = _vulgar_word(m, words)
    if hit is not None:
        return hit
    # Each rule below is called only when a word it reads is there (one set operation; most names: none).
    together = "".join(words)
    if together in m.vulgar_phrases or together in m.vulgar_words or not m.vulgar_words.keys().isdisjoint(words):
        hit = _listed_vulgar(m, words)
        if hit is not None:
            return hit
    if not together.isalpha():
        return None
    first = words[0]
    if n == 2 and first == words[1] and _role_weight(m, words, 0)[0] < VULGAR_NAME_MAX:
        return Reason(REPEATED_NON_NAME, first, m.scores(first))  # no given name, whatever its surname
    if n == 2 and first not in m.seen:  # no English word, insult or pun's given name: of the rules below, only
        return _pun_pair(m, words)  # a phrase may read it (WordNet's words are not all in the tables)
    if first in m.words:
        hit = _english_words(m, words)
        if hit is not None:
            return hit
    if not m.insults.isdisjoint(words[:-1]):
        hit = _insult(m, words)
        if hit is not None:
            return hit
    if first in m.pun_givens:
        hit = _pun(m, words)
        if hit is not None:
            return hit
    if n != 2:
        return None
    hit = _pun_pair(m, words)
    return hit if hit is not None else sounds_as(first, words[1])


def _role_weight(m: NameModel, words: Sequence[str], i: int) -> tuple[int, str]:
    """How plausible the i-th word is as a name where it stands: a given name first, a surname last (a word borne
    only in the other role counts ROLE_SWAP less), either in between."""
    w = words[i]
    if 0 < i < len(words) - 1:
        return m.weight(w), "name"
    bits = m.info.get(w, 0)
    given, surname = bits & _WEIGHT, bits >> SURNAME_SHIFT & _WEIGHT
    if i == 0:
        return max(given, surname - ROLE_SWAP), "given name"
    return max(surname, given - ROLE_SWAP), "surname"


def _listed_vulgar(m: NameModel, words: Sequence[str]) -> Reason | None:
    """A vulgar word of some language's list (LDNOOBW) where it is no plausible name (under 100 US bearers in
    that role and in no culture's list): alone, as a given name of 6+ letters ("Arschloch Meier", "Connard
    Dupont": Connard is a surname of 335 US bearers, a given name of 21); elsewhere, or shorter, only next to an
    insult word or another vulgar word. The lists hold ordinary words with a slang sense (cappella, uccello,
    quaglia) from which surnames are made: of the Census 2010 surnames of 100-999 bearers, 0.51 in 1,000 are a
    list word of 5+ letters, of the SSA given names under 1,000 bearers 0.20 in 1,000, and 0.06 in 1,000 of 6+
    letters (measured on the model's sources). Or the whole name written together is a vulgar word or phrase
    ("Hijo Puta")."""
    together = "".join(words)
    langs = m.vulgar_phrases.get(together) or m.vulgar_words.get(together)
    if langs is not None and len(together) >= 6:
        return Reason(VULGAR_WORD, " ".join(words), f"written together, a vulgar phrase in {langs}")
    for i, w in enumerate(words):
        langs = m.vulgar_words.get(w)
        if langs is None:
            continue
        weight, role = _role_weight(m, words, i)
        if weight >= VULGAR_NAME_MAX:
            continue
        if (i == 0 and len(w) >= LISTED_ALONE_MIN) or any(o in INSULT_WORDS or o in m.vulgar_words
                                                           for o in words if o != w):
            return Reason(VULGAR_WORD, w, f"a vulgar word in {langs}; as a {role} {_tenths(weight)} < "
                          f"{_VULGAR_NAME_MAX_SHOWN}; {m.scores(w)}")
    return None


def _insult(m: NameModel, words: Sequence[str]) -> Reason | None:
    """A noun for a stupid person (Nincompoop, Doofus) as a given name (or a middle one) that is no plausible one;
    as a surname it is not read: some are rare surnames (Klutz, 447 US bearers)."""
    for i, w in enumerate(words[:-1]):
        if w in m.insults:
            weight, role = _role_weight(m, words, i)
            if weight < VULGAR_NAME_MAX:
                return Reason(INSULT_WORD, w, f"a noun for a stupid person (WordNet); as a {role} {_tenths(weight)}"
                              f" < {_VULGAR_NAME_MAX_SHOWN}; {m.scores(w)}")
    return None


def _pun_pair(m: NameModel, words: Sequence[str]) -> Reason | None:
    """A given name and a surname that is an English word, both names of the sources maybe, that read aloud
    together as a common word or a noun phrase ("Penny Less" = penniless, "Dinah Mite"), or two words that are a
    noun phrase ("Herb Garden", "Party Pooper"), borne by fewer than PAIR_MAX US people expected."""
    if len(words) != 2:
        return None
    first, last = words
    how = "reads aloud as"
    if f"{first}_{last}" in m.phrases:
        reading, how = f"{first} {last}", "is the phrase"
    elif first not in m.reading_givens or len(last) < PUN_SURNAME_MIN or not m.info.get(last, 0) & ENGLISH:
        return None  # the genre's surname is a word itself (Less, Mite): Maria Ackiss is no "mariachis"
    else:
        reading = m.readings.get(tight(words), "")
        if not reading or reading in words or not reading.replace("_", "").endswith(last):
            return None  # the pun spells its surname as the word's end: Penny Less, not Maria Kiss ("mariachis")
        reading = reading.replace("_", " ")
    given, surname = m.info.get(first, 0) & _WEIGHT, m.info.get(last, 0) >> SURNAME_SHIFT & _WEIGHT
    weight = given + surname
    if weight >= US_PEOPLE_WEIGHT + round(10 * math.log10(PAIR_MAX)):
        return None
    return Reason(PUN_READING, " ".join(words), f"{how} {reading!r}; log10 US bearers: {first} as given "
                  f"name {_TENTHS[given]}, {last} as surname {_TENTHS[surname]}: "
                  f"{_expected(weight)} US people expected to bear the pair < {_PAIR_MAX_SHOWN}")


@functools.cache
def _sound_puns() -> tuple[dict[str, str], dict[str, int]]:
    """(given_surname -> reading, given_surname -> pair weight) of wordlists/sound_puns.txt (build_sound_puns.py),
    read on the first two-word name that reaches the rule: two dicts made from whole lines (a few ms)."""
    readings: dict[str, str] = {}
    weights: dict[str, int] = {}
    for line in _lines("sound_puns.txt"):
        weight, pairs, said = line.split("\t")
        keys = pairs.split()
        readings.update(zip(keys, said.split(), strict=True))
        weights.update(dict.fromkeys(keys, int(weight)))
    return readings, weights


def _sound_entry(first: str, last: str) -> tuple[str, int, bool, bool] | None:
    """The table's reading of a given name + surname (words apart), the pair's weight (10 x log10 of the two
    names' US bearers multiplied), whether the name written together spells the reading and whether only a
    phrase of the Moby Thesaurus reads it (a leading +); None if it holds none."""
    readings, weights = _sound_puns()
    key = f"{first}_{last}"
    said = readings.get(key)
    if said is None:
        return None
    return said.strip("+=").replace("_", " "), weights[key], said.endswith("="), said.startswith("+")


def sound_pun(first: str, last: str) -> tuple[str, float] | None:
    """What a given name + surname read aloud as by the CMU Pronouncing Dictionary (a common word or phrase) and
    how many US people are expected to bear the pair, or None when the table holds no reading of it."""
    entry = _sound_entry(first, last)
    if entry is None:
        return None
    reading, weight, _, _ = entry
    return reading, 10 ** ((weight - US_PEOPLE_WEIGHT) / 10)


def sounds_as(first: str, last: str) -> Reason | None:
    """The rule SOUNDS_AS: a pair the table reads as a word or phrase, borne by fewer than its limit (MOBY_PAIR_MAX
    when only a phrase of the Moby Thesaurus reads it; PAIR_MAX when the name written together spells the reading,
    as the older pun rules weigh it; SOUND_PAIR_MAX otherwise)."""
    entry = _sound_entry(first, last)
    if entry is None:
        return None
    reading, weight, spelled, thesaurus = entry
    limit = MOBY_PAIR_MAX if thesaurus else PAIR_MAX if spelled else SOUND_PAIR_MAX
    if weight >= US_PEOPLE_WEIGHT + round(10 * math.log10(limit)):
        return None
    source = "CMU Pronouncing Dictionary; phrase of the Moby Thesaurus" if thesaurus else "CMU Pronouncing Dictionary"
    return Reason(SOUNDS_AS, f"{first} {last}", f"reads aloud as {reading!r} ({source}); log10 "
                  f"US bearers of the two names multiplied {_tenths(weight)}: {_expected(weight)} US people expected "
                  f"to bear the pair < {_LIMITS_SHOWN[limit]}")


# Particles of surnames (van Loon, de la Cruz, bin Laden) are words of no name on their own.
PARTICLES: Final = frozenset({"van", "von", "de", "der", "den", "la", "le", "da", "di", "del", "della", "dos", "du",
                              "bin", "bint", "al", "el", "ben", "ter", "ten", "st", "mac", "mc", "o"})


def _english_words(m: NameModel, words: Sequence[str]) -> Reason | None:
    bits = [m.info.get(w, 0) for w in words]  # (the packed table: m.words may be a view of it)
    if len(words) > 3 or not bits[-1] & ENGLISH or any(w in PARTICLES for w in words):
        return None  # (a surname that is no English word: most names whose given name is one, asked first)
    if not all(v & ENGLISH for v in bits):
        return None
    margin = _english_margin(bits)
    return _english_reason(m, words, margin) if margin >= ENGLISH_MARGIN else None


def _english_reason(m: NameModel, words: Sequence[str], margin: int) -> Reason:
    """The flag of _english_words, its margin reached."""
    shown, most = "", -1 << 30
    for w in words:  # the first word of the largest word-over-name score (as max)
        bits = m.info[w]
        score = _SIZE_WEIGHTS[bits >> SIZE_SHIFT & 15] - max(bits & _WEIGHT, bits >> SURNAME_SHIFT & _WEIGHT)
        if score > most:
            shown, most = w, score
    return Reason(ENGLISH_WORDS, " ".join(words),
                  f"word-over-name margin {_tenths(margin)} >= {_ENGLISH_MARGIN_SHOWN}; {shown}: {m.scores(shown)}")


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
        if len(w) < 3:
            continue
        if w not in m.seen:  # no English word, no name: read unless its first letters tell no reading fits
            if not _may_sound_vulgar(m, w):
                continue
            named = True
        else:
            if w in m.words:
                continue
            named = w not in m.soundalike  # a name of the tables no vulgar reading fits (build_name_model lists
            if named and (w in m.given or w in m.surname or not _may_sound_vulgar(m, w)):  # those it fits)
                continue
        hit = _read_vulgar(m, w, named, words)
        if hit is not None:
            return hit
    return None


def _read_vulgar(m: NameModel, w: str, named: bool, words: Sequence[str]) -> Reason | None:
    """The sound-alike rule on one word its gate let through (`named`: no table holds it as a name)."""
    sound = _vulgar_sound(w)
    found = m.vulgar.get(sound)
    alone = found is not None and _respelled(w, found)
    how = f"reads as {found!r}" if found else ""
    if found is None and len(w) >= 6 and sound.lstrip("aeiouy")[:1] in m.skeleton_heads \
            and sound.rstrip("aeiouy")[-1:] in m.skeleton_ends:
        found = m.vulgar_skeletons.get(sound.translate(_NO_VOWELS))  # other vowels in a long one: Basterd
        alone = found is not None
        how = f"reads as {found!r} with other vowels" if found else ""
    if found is None and sound[:2] in m.vulgar_heads:
        found, how = _vulgar_compound(m, w, sound)
        alone = found is not None
    if found is None or (named and is_known(w)):
        return None  # a name of some source (asked last: the binary search costs more than most readings)
    if alone and m.weight(w) < VULGAR_NAME_MAX:
        return Reason(VULGAR_SOUND, w, f"{how}; {m.scores(w)}")
    others = [o for o in words if o != w]
    if any(o in INSULT_WORDS or m.vulgar.get(_vulgar_sound(o)) for o in others):
        return Reason(VULGAR_SOUND, w, f"{how}, next to an insult; {m.scores(w)}")
    return None


def _may_sound_vulgar(m: NameModel, w: str) -> bool:
    """False when no reading of the rule can fit the word, told from its first four letters (spoof_heads: one set
    look-up for a word of lower-case ASCII letters, the heads prepared at build time; other heads are computed).
    The gate of judge_slow, the reference: judge asks NameModel.may_read, which lets fewer words through."""
    if "v" in w and _VOWEL.isdisjoint(w):
        return True  # v = u in a word without vowels: the one rewrite a head does not tell
    head = w[:spoof_heads.HEAD_LETTERS]
    long = len(w) >= 6
    short_heads, long_heads = (m.head_short, m.head_long) if m.head_short else _prepared_heads()
    if head in (long_heads if long else short_heads):
        return True
    if head.isascii() and head.isalpha() and head.islower():
        return False  # the prepared heads hold every such head a reading may start
    starts = m.vulgar_starts or spoof_heads.vulgar_starts(m.vulgar)
    return spoof_heads.may_start(head, _vulgar_sound, m.vulgar, starts, m.vulgar_skeletons)[long]


@functools.cache
def _prepared_heads() -> tuple[frozenset[str], frozenset[str]]:
    """The heads of vulgar_heads.txt (build_vulgar_heads.py), read on the first use of _may_sound_vulgar: judge no
    longer asks them, so model() does not read them (about 10 ms of its load)."""
    return spoof_heads.read(WORDLISTS / "vulgar_heads.txt")


_HEAD_LENGTHS: Final = range(2, 9)
_COMMON_TAIL_SIZE: Final = 20


def _vulgar_compound(m: NameModel, w: str, sound: str) -> tuple[str | None, str]:
    """A vulgar word or sound-alike joined to an insult word (Azwipe, Fukyu, Dikweed), or a respelled one of 4+
    letters joined to a very common English word. A head that is itself an English word (but, as) or a tail that
    is a mere name ending (son, er, nick) does not count: Buttrill, Asprey, Kumnick and Koomson are surnames.
    Only a word whose reading starts with a vulgar word's reading is split (most words: a few dict look-ups)."""
    if m.vulgar_start.match(sound) is None:
        return None, ""  # no reading of 2-8 letters starts it (test_spoof_model holds the loop it replaces)
    # the split points whose tail may be a tail: those of the lengths of the tails that end as the word does
    lengths = m.tail_ends.get(w[-3:], 0) | m.tail_ends.get(w[-2:], 0)
    if not lengths:
        return None, ""
    get = m.info.get
    n = len(w)
    for i in range(2, n - 1):
        if not lengths >> (n - i) & 1:
            continue
        tail = w[i:]
        if not get(tail, 0) & TAIL:
            continue
        insult = tail in INSULT_WORDS
        size = _SIZES[get(tail, 0) >> SIZE_SHIFT & 15] or None
        if not insult and (size is None or size > _COMMON_TAIL_SIZE or len(tail) < 3 or i < 4):
            continue
        head = w[:i]
        if get(head, 0) & ENGLISH:
            continue
        found = m.vulgar.get(_vulgar_sound(head))
        if found is None:
            continue
        if insult and (len(head) >= 3 or len(tail) >= 3):
            return found, f"{head!r} reads as {found!r}, then {tail!r}"
        if len(head) >= 4 and _respelled(head, found) and size is not None:
            return found, f"{head!r} reads as {found!r}, then {tail!r}"
    return None, ""


def _may_fit(m: NameModel, w: str) -> bool:
    """Whether _read_vulgar may find a reading of a word that NameModel.may_read let through by its start, without
    reading it: its whole reading may be a vulgar one, or it ends with a tail of _vulgar_compound (of a length
    tail_ends gives, a tail word) after a head whose reading may be a vulgar one (key_whole: one regex each), or
    it is one the gate lets through to read as it is (as_they_are)."""
    n = len(w)
    lengths = (m.tail_ends.get(w[-3:], 0) | m.tail_ends.get(w[-2:], 0)) & ((1 << (n - 1)) - 4)  # tails of 2 to n-2
    whole = m.key_whole.fullmatch
    if whole(w) is not None or m.as_they_are.match(w) is not None:  # (the gate asks the latter after the starts)
        return True
    get = m.info.get
    while lengths:
        tail = lengths.bit_length() - 1
        lengths ^= 1 << tail
        if get(w[n - tail:], 0) & TAIL and whole(w, 0, n - tail) is not None:
            return True
    return False


# names_known.bin: the CRC-32 of every known name in an open-addressing table of 2**19 slots (little-endian unsigned
# 32-bit; a hash sits at its low 19 bits or, that slot taken, in the next free one; 0 = empty), then one slot more:
# 1 when the hash 0 is a known name's. Half full: a look-up reads one or two slots, most often in one cache line.
KNOWN_SLOT_BITS: Final = 19


def known_slots(hashes: Iterable[int]) -> array.array[int]:
    """The table of names_known.bin holding these hashes (build_name_model.py, build_known_slots.py): inserted in
    ascending order, so the same hashes make the same bytes."""
    size = 1 << KNOWN_SLOT_BITS
    mask = size - 1
    slots = array.array("I", bytes(4 * (size + 1)))
    for h in sorted(set(hashes)):
        if not h:
            slots[size] = 1
            continue
        i = h & mask
        while slots[i]:
            i = (i + 1) & mask
        slots[i] = h
    return slots


@functools.cache
def _known_hashes() -> array.array[int]:
    """names_known.bin's table (see KNOWN_SLOT_BITS), read as it is: a membership test in one or two array reads,
    without building 270,000 ints at load (a set of them takes 30-40 ms)."""
    table = array.array("I")
    table.frombytes((WORDLISTS / "names_known.bin").read_bytes())
    if sys.byteorder == "big":
        table.byteswap()  # the file is little-endian
    if len(table) != (1 << KNOWN_SLOT_BITS) + 1:
        raise ValueError(f"names_known.bin holds {len(table)} slots, not 2**{KNOWN_SLOT_BITS} + 1")
    return table


_KNOWN_MASK: Final = (1 << KNOWN_SLOT_BITS) - 1


def is_known(word: str) -> bool:
    """Whether some source holds the word as a name (a chance CRC match, about 1 word in 17,000, only ever
    spares a name from the vulgar and pun rules)."""
    table = _known_hashes()
    h = zlib.crc32(word.encode())
    i = h & _KNOWN_MASK
    while True:  # (the table is half empty: the probe ends)
        held = table[i]
        if held == h:
            return bool(h) or bool(table[-1])
        if not held:
            return False
        i = (i + 1) & _KNOWN_MASK


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
    if len(words) > 3 or len(last) < 3 or first not in m.pun_givens or last in m.surname or last in m.given \
            or is_known(last):  # every name of the tables is a known one (test_spoof_model): asked first
        return None
    return _pun_read(m, words)


def _pun_read(m: NameModel, words: Sequence[str]) -> Reason | None:
    """The pun rule past its first tests (a given name of pun_givens, a surname of 3+ letters no source holds)."""
    first, last = words[0], words[-1]
    key = coarse(words)
    word = m.puns.get(key)
    if word is None or word in words or any(coarse([w]) == key for w in words):
        return None
    return Reason(PUN_READING, " ".join(words), f"reads aloud as {word!r}; log10 US bearers: {first} as given name "
                  f"{_TENTHS[m.info.get(first, 0) & _WEIGHT]}; {last}: a name of no source")
