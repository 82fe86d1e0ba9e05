"""Build `wordlists/vulgar_heads.txt`: the heads of three and four lower-case ASCII letters with which a word may
start a vulgar reading of the name model's sound-alike rule (`spoof_heads.may_start`), prepared so that the model
tells most words apart with one set look-up instead of reading them. From vulgar_sounds.txt and the reading alone;
`test_spoof_model.py` checks the file against the function. Run:
`.venv/bin/python tests/lead_rules/build_vulgar_heads.py` after vulgar_sounds.txt or `_vulgar_sound` changes."""

from __future__ import annotations

import itertools
import string

from dqkit.engines.lead import spoof_heads, spoof_model

OUT = spoof_model.WORDLISTS / "vulgar_heads.txt"
HEADER = """\
# Heads of 3-4 lower-case ASCII letters with which a word (other than one of v and consonants alone, which is
# always read) may start a vulgar reading of the name model's sound-alike rule (spoof_heads.may_start): line
# "short<TAB>heads" for words of 3-5 letters, line "long<TAB>heads" for the further heads of words of 6+ letters
# (their consonants may read as a long vulgar word's). Every other such head starts no vulgar reading.
# Made by tests/lead_rules/build_vulgar_heads.py from vulgar_sounds.txt (dqkit's own list); do not edit by hand.
"""


def heads() -> tuple[list[str], list[str]]:
    """(heads for 3-5 letters, further heads for 6+ letters), sorted."""
    m = spoof_model.model()
    starts = spoof_heads.vulgar_starts(m.vulgar)
    short: list[str] = []
    long_only: list[str] = []
    letters = string.ascii_lowercase
    for n in (3, spoof_heads.HEAD_LETTERS):
        for t in itertools.product(letters, repeat=n):
            head = "".join(t)
            joined, long = spoof_heads.may_start(head, spoof_model._vulgar_sound, m.vulgar, starts,
                                                 m.vulgar_skeletons)
            if joined:
                short.append(head)
            elif long:
                long_only.append(head)
    return sorted(short), sorted(long_only)


def main() -> None:
    if not OUT.exists():
        OUT.write_text(HEADER, encoding="utf-8")  # the model reads it; with no heads it computes every one
    short, long_only = heads()
    OUT.write_text(HEADER + f"short\t{' '.join(short)}\nlong\t{' '.join(long_only)}\n", encoding="utf-8")
    print(f"wrote {len(short)} + {len(long_only)} heads to {OUT}")


if __name__ == "__main__":
    main()
