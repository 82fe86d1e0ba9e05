"""Input size limits of the engines, refused at once with the documented error (a 400 over HTTP).

An address search text longer than MAX_SEARCH_TEXT_BYTES (UTF-8) is no address: refusing it before any work keeps
every search bounded and every key that embeds the text (a list's `suggestions_key`) under 1.5 KB, well inside the
vendor's 4,000-character key limit that refine and step-in accept, whatever the input.
"""

from __future__ import annotations

from typing import Final

from dqkit.contract.errors import BadRequestError

MAX_SEARCH_TEXT_BYTES: Final = 1024


def check_search_text(text: str) -> str:
    """`text` when within MAX_SEARCH_TEXT_BYTES; BadRequestError naming the limit otherwise."""
    if len(text) > MAX_SEARCH_TEXT_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_SEARCH_TEXT_BYTES:
        raise BadRequestError(f"the search text is longer than {MAX_SEARCH_TEXT_BYTES} bytes; no address is that "
                              "long")
    return text
