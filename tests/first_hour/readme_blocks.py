"""The code blocks of README.md, as a newcomer reads them, with the markers that say how the first-hour test runs
each one.

A marker is an HTML comment on the line just above a fence (invisible on GitHub):

    <!-- first-hour: skip (why) -->      not run as written (it starts a server, or is the whole test suite);
                                         the test runs a stand-in check instead, named after the reason
    <!-- first-hour: needs-server -->    run while the test's own `dqkit serve` (started from the README's serve
                                         block) is up
    <!-- first-hour: needs-download (what) -->   run as written, after the test has put the file the reader is
                                         told to download where the README says (a small file of the same format)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```(?P<lang>[\w-]*)\s*$")
MARK = re.compile(r"^<!--\s*first-hour:\s*(?P<what>skip|needs-server|needs-download)\s*"
                  r"(?:\((?P<why>[^)]*)\))?\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    lang: str  # "sh" or "python"
    code: str
    line: int  # 1-based line of the opening fence in README.md
    marker: str = ""  # "", "skip", "needs-server" or "needs-download"
    reason: str = ""

    @property
    def first_line(self) -> str:
        return self.code.strip().splitlines()[0] if self.code.strip() else ""


def readme_blocks(path: Path) -> list[Block]:
    """Every fenced sh/python block of the README, in order, with its marker."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group("lang"):
            i += 1
            continue
        lang, start = m.group("lang"), i
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        marker = reason = ""
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mark = MARK.match(lines[k].strip()) if k >= 0 else None
        if mark:
            marker, reason = mark.group("what"), (mark.group("why") or "").strip()
        if lang in ("sh", "bash", "python"):
            blocks.append(Block("python" if lang == "python" else "sh", "\n".join(lines[start + 1: j]) + "\n",
                                start + 1, marker, reason))
        i = j + 1
    return blocks
