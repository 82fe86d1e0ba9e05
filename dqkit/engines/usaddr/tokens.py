"""Turn address text into upper-case tokens, fast: one `translate`, two regex passes, one `split`.

Commas and line breaks become "," tokens (they separate delivery line, city and state when present); "#" is a
token of its own; periods inside abbreviations disappear ("P.O." -> "PO", "N.E." -> "NE") and periods between
words become spaces ("N.Main" -> "N MAIN"); apostrophes disappear ("O'Farrell" -> "OFARRELL"); hyphens and
slashes stay inside tokens ("1/2", "I-95", "C/O").
"""

from __future__ import annotations

import re
from typing import Final

_SPACE = " "
_TRANSLATE: Final = str.maketrans({
    "'": "", "`": "", "\u2019": "", '"': _SPACE, ";": " , ", ":": _SPACE, "#": " # ", ",": " , ",
    "\t": _SPACE, "\n": " , ", "\r": _SPACE, "*": _SPACE, "_": _SPACE, "!": _SPACE, "?": _SPACE,
    "(": " ( ", ")": " ) ", "[": " ( ", "]": " ) ", "{": _SPACE, "}": _SPACE, "<": _SPACE, ">": _SPACE,
    "=": _SPACE, "%": _SPACE, "$": _SPACE, "@": _SPACE, "+": _SPACE, "\\": _SPACE, "|": _SPACE,
    "~": _SPACE, "^": _SPACE, "\u00a0": _SPACE, "\u2013": "-", "\u2014": "-",
})
_PERIOD_BEFORE_WORD: Final = re.compile(r"\.(?=[A-Z]{2})")
_DESIG_GLUED: Final = re.compile(r"^(APT|STE|UNIT|RM|SPC|BLDG|FL|LOT|TRLR|PMB|BOX|NO)(\d+[A-Z]?)$")
_NUMBER_SIGN: Final = re.compile(r"^(NO|NUM|NUMBER|NBR)$")


def tokenize(text: str) -> list[str]:
    """Upper-case tokens of `text`; "," marks a comma or line break (never two in a row, never first/last)."""
    s = text.upper().translate(_TRANSLATE)
    if "." in s:
        s = _PERIOD_BEFORE_WORD.sub(" ", s).replace(".", "")
    out: list[str] = []
    for raw in s.split():
        tok = raw.strip("-/")
        if not tok:
            continue
        if tok == ",":
            if out and out[-1] != ",":
                out.append(",")
            continue
        m = _DESIG_GLUED.match(tok) if tok[0].isalpha() and tok[-1].isalnum() and len(tok) > 2 else None
        if m is not None:
            out.extend((m.group(1), m.group(2)))
            continue
        out.append(tok)
    while out and out[-1] == ",":
        out.pop()
    while out and out[0] == ",":
        out.pop(0)
    return out


def is_number_word(tok: str) -> bool:
    """NO / NUM / NUMBER before a unit value means "#"."""
    return _NUMBER_SIGN.match(tok) is not None
