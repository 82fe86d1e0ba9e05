"""Build `wordlists/english_word_sounds.txt`: the sound key (`spoof._sound`) of every word of english_words.txt,
prepared here so that loading the spoof tables does not compute 43,000 keys (half of their load time before).
`test_spoof_model.py` checks that it matches the words and the function. Run:
`.venv/bin/python tests/lead_rules/build_word_sounds.py` after either changes."""

from __future__ import annotations

from dqkit.engines.lead import spoof

OUT = spoof.WORDLISTS / "english_word_sounds.txt"
HEADER = """\
# Sound keys of english_words.txt (spoof._sound), prepared for a fast load: lines "keys<TAB>words", the n-th key
# the sound of the n-th word; where two words share a key, the one earlier in english_words.txt is kept.
# Made by tests/lead_rules/build_word_sounds.py from english_words.txt (SCOWL; SCOWL_LICENSE.txt); do not edit.
"""


def sounds() -> dict[str, str]:
    """sound key -> word, as spoof._tables made it before it was prepared here."""
    return {spoof._sound.__wrapped__(w): w for w in reversed(spoof._lines("english_words.txt"))}  # type: ignore[attr-defined]


def main() -> None:
    items = sorted(sounds().items())
    chunks = [items[i : i + 1000] for i in range(0, len(items), 1000)]
    OUT.write_text(HEADER + "".join(f"{' '.join(k for k, _ in c)}\t{' '.join(w for _, w in c)}\n" for c in chunks),
                   encoding="utf-8")
    print(f"wrote {len(items)} sound keys to {OUT}")


if __name__ == "__main__":
    main()
