"""Suffix and direction as the address vendors treat them: one rule for validate, the standardizer and the lead
engine (issue 28).

A street name can exist in one locality in several forms: SUNSET BLVD and W SUNSET BLVD, CRESTFIELD CIR and
CRESTFIELD DR. When the typed form differs from the form of a candidate street (a suffix or direction typed that
the candidate lacks, or a direction the candidate has that was not typed), the rule says whether the candidate is
the typed street corrected, one of two real readings, or not the typed street at all:

* a typed suffix that is valid but absent for that name in the locality, where the name with the house number
  exists under exactly one other form, is corrected ("suffix AVE corrected to DR"); a typed suffix the name has
  there is the typed street, never corrected into another one; a typed suffix or direction is changed only to a
  form that holds the typed number (a street without it would be a guess);
* a correction says the typed street is not there, a "not found" that only a reference holding every street of
  the locality supports: from it a typed suffix or direction is corrected (and a typed direction dropped) as
  above. From a sample (partial) the typed street may be one it lacks (1511 MONTEVAL LN and 1511 MONTEVAL PL are
  both real, in 95120; a sample holding only the PL point cannot tell "1511 Monteval Ln" from a slip for PL), so
  there the vendors' correction is made less sure (CORRECTED with `partial` set: the answer is below Verified,
  Interaction required, and says why) and only in the narrow case the vendors describe: ONE typed part changed (the
  suffix, or a typed direction changed into another), the typed form absent from the whole city as well, and for
  a direction the name having that one direction in the whole city (`city_forms`). Anything else from a sample
  (a typed direction dropped, suffix and direction both changed, the typed form elsewhere in the city) is REFUSED
  with `partial` set and the changes it would have made, so the answer can offer the street and say why it did not
  correct it. A suffix or direction not typed is still completed;
* a missing, extra or wrong direction is added, removed or changed only when no other direction of the name
  (the typed one, none, or a third) exists in the locality with numbers that may reach the typed one: where the
  reference holds every street of the locality, a street's lowest and highest house numbers bound it; elsewhere
  any such street may hold the number. When one does, both readings are real: the answer lists both and
  verifies neither. The typed street holding the number is the answer, never another form; a typed direction
  is dropped (W SUNSET BLVD typed, only SUNSET BLVD held) only where the reference holds every street there: from
  a sample, the typed street may be one it lacks;
* a missing suffix is completed (no flag): the vendors add it without a word when the name has one form there;
* a direction typed on the other side of the name (TEAL BLVD SW for SW TEAL BLVD) is the same street, its
  direction moved: validate flags and says it (`Evidence.direction_moved`), as the standardizer's code 46 does.

Every correction is named in `FormCheck.changes`, so that the answer can flag it and say it in its note.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from dqkit.engines.usaddr.pub28 import DIRECTIONALS, SUFFIXES

if TYPE_CHECKING:
    from dqkit.engines.usaddr.points import AddressPoint, PointSource

Form = tuple[str, str, str]  # (predir, suffix, postdir), Publication 28 abbreviations, "" when absent

SAME: Final = "same"  # the candidate is the typed street (a missing suffix completed at most)
CORRECTED: Final = "corrected"  # the typed street is not in the locality; the candidate is it, corrected
AMBIGUOUS: Final = "ambiguous"  # the typed street exists too, or another form holds the number: two readings
REFUSED: Final = "refused"  # the typed form exists with this number, or names a street that exists: not this one


@dataclass(frozen=True, slots=True)
class FormFacts:
    """What the reference holds of one form of a name in the locality: whether the typed house number is on it,
    and the lowest and highest house number on it (integers; 0, 0 when unknown)."""

    has_number: bool
    lo: int = 0
    hi: int = 0


@dataclass(frozen=True, slots=True)
class FormCheck:
    verdict: str
    changes: tuple[str, ...] = ()  # "suffix AVE corrected to DR", "direction W added", ...
    others: tuple[Form, ...] = ()  # AMBIGUOUS: the other real readings
    # the reference holds part of the locality: REFUSED only for that reason (`changes`: what would have been
    # changed), or CORRECTED from it, less sure (the answer is Interaction required, not Verified, and says why)
    partial: bool = False


def typed_form(predir: str, suffix: str, postdir: str) -> Form:
    """A typed form in Publication 28 abbreviations ("AVENUE" -> "AVE", "WEST" -> "W"); "" stays "" (not typed)."""
    return (DIRECTIONALS.get(predir, predir), SUFFIXES.get(suffix, suffix), DIRECTIONALS.get(postdir, postdir))


def _direction(f: Form) -> str:
    return f[0] or f[2]


def check_form(typed: Form, answer: Form, forms: Mapping[Form, FormFacts], number: int = 0, *,
               complete: bool = False, city_forms: Callable[[], Iterable[Form]] | None = None) -> FormCheck:
    """Whether the candidate street of form `answer` is the street typed as `typed` ("" for a part not typed),
    given every form of the name in the locality (`forms`, the answer's included) and the typed house number
    (`number`, 0 when none or not numeric). `complete`: the reference holds every street of the locality, so that
    a street's house numbers bound where it runs. `city_forms`: gives every form of the name in the whole city (None:
    those of `forms`); called only for a correction from a partial reference, the one case that reads it."""
    t_suf, a_suf = typed[1], answer[1]
    changes: list[str] = []
    suffix_changed = bool(t_suf) and t_suf != a_suf
    if suffix_changed:
        if any(f[1] == t_suf and _direction(f) == (_direction(typed) or _direction(f)) for f in forms):
            return FormCheck(REFUSED)  # the typed street exists: it is the answer or nothing is
        changes.append(f"suffix {t_suf} corrected to {a_suf}" if a_suf else f"suffix {t_suf} removed")
    t_dir, a_dir = _direction(typed), _direction(answer)
    others: list[Form] = []
    if t_dir != a_dir:
        # every other direction of the name (the typed one, none, another) is a reading of what was typed, unless
        # complete data shows its numbers do not reach the typed one; the typed street holding it is the answer
        suffix = a_suf if suffix_changed or not t_suf else t_suf
        for f, facts in forms.items():
            if f == answer or f[1] != suffix or _direction(f) == a_dir:
                continue
            if facts.has_number and _direction(f) == t_dir:
                return FormCheck(REFUSED)
            beyond = complete and number > 0 and facts.hi > 0 and not facts.lo <= number <= facts.hi
            if facts.has_number or not beyond:
                others.append(f)
        changes.append(f"direction {a_dir} added" if not t_dir else
                       f"direction {t_dir} removed" if not a_dir else f"direction {t_dir} corrected to {a_dir}")
    if others:
        return FormCheck(AMBIGUOUS, tuple(changes), tuple(others))
    held = forms.get(answer)
    typed_changed = suffix_changed or bool(t_dir and t_dir != a_dir)
    if typed_changed and not (held is not None and held.has_number):
        return FormCheck(REFUSED)  # a typed suffix or direction is changed only to a form holding the number
    if changes:
        holders = tuple(f for f, facts in forms.items() if f != answer and facts.has_number)
        if holders:
            return FormCheck(AMBIGUOUS, tuple(changes), holders)
        if typed_changed and not complete:
            # the data does not show the typed street absent: corrected less sure, only in the vendors' one case
            sure_enough = _unique_in_city(typed, answer, forms if city_forms is None else city_forms())
            return FormCheck(CORRECTED if sure_enough else REFUSED, tuple(changes), partial=True)
        return FormCheck(CORRECTED, tuple(changes))
    return FormCheck(SAME)


def _unique_in_city(typed: Form, answer: Form, city_forms: Iterable[Form]) -> bool:
    """Whether a partial reference may still correct the typed street into `answer` (see the module docstring):
    one typed part changed, a typed suffix no form of the name has in the city, a typed direction changed into the
    one direction the name has in the city (never dropped: the name without one may be a street the sample lacks)."""
    t_suf, a_suf, t_dir, a_dir = typed[1], answer[1], _direction(typed), _direction(answer)
    suffix_changed = bool(t_suf) and t_suf != a_suf
    direction_changed = bool(t_dir) and t_dir != a_dir
    if suffix_changed == direction_changed:
        return False  # both (two guesses), or neither (nothing typed was changed)
    city = set(city_forms)
    if suffix_changed:
        return not any(f[1] == t_suf for f in city)
    return bool(a_dir) and all(_direction(f) == a_dir for f in city)


def facts_of_points(points: Iterable[AddressPoint], number: str) -> dict[Form, FormFacts]:
    """Every form of one name among `points` (all the points of the name in the locality): whether it holds
    `number`, and its lowest and highest house number."""
    acc: dict[Form, tuple[bool, int, int]] = {}
    for p in points:
        f = (p.street.predir, p.street.suffix, p.street.postdir)
        n = leading_number(p.number)
        has, lo, hi = acc.get(f, (False, n, n))
        acc[f] = (has or p.number == number, min(lo, n), max(hi, n))
    return {f: FormFacts(*v) for f, v in acc.items()}


def leading_number(number: str) -> int:
    """The leading integer of a house number ("1200A" -> 1200); 0 when none."""
    end = 0
    while end < len(number) and number[end].isdigit():
        end += 1
    return int(number[:end]) if end else 0


def city_forms_of(source: PointSource, zip5: str, name: str, points: Sequence[AddressPoint]) -> set[Form]:
    """Every form of street `name` in the whole city of `points` (its points in `zip5`): those of `zip5` and of
    every ZIP of the city, as validate reads the city (`check_form`'s `city_forms`)."""
    from dqkit.engines import zipdata

    out = {(p.street.predir, p.street.suffix, p.street.postdir) for p in points}
    if points:
        for z in zipdata.zips_for_city(points[0].city, points[0].state):
            if z != zip5:
                out |= {(p.street.predir, p.street.suffix, p.street.postdir) for p in source.points_on_street(z, name)}
    return out
