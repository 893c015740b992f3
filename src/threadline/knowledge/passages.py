"""What a citation keeps of the passage it quotes, to tell it again from a later version.

A passage's id is its document's id and its position, the same in every version of the
document: after the document is replaced, the id opens the new version's passage. A
citation therefore also keeps a digest of the text it quoted; the passage route compares
it with the text it finds, and says so when they differ instead of showing other text.
"""

from __future__ import annotations

import hashlib

TEXT_DIGEST = r"[0-9a-f]{64}"
"""What a passage's text digest looks like (hex SHA-256), as an unanchored pattern."""


def passage_digest(text: str) -> str:
    """Return the hex SHA-256 of a passage's text (UTF-8), as a citation keeps it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
