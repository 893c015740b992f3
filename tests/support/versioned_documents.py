"""Documents whose every chunk names the upload it came from, to prove a replace is whole."""

from __future__ import annotations

import re

VERSION = re.compile(r"version (\d+) of (\d+) sections, section (\d+)")


def versioned_document(version: int, sections: int) -> bytes:
    """A document whose every chunk says which upload it came from."""
    parts = [
        f"## Part {i}\nThis is version {version} of {sections} sections, section {i}."
        for i in range(sections)
    ]
    return "\n\n".join(parts).encode()


def chunk_versions(texts: list[str]) -> set[tuple[int, int]]:
    found = set()
    for text in texts:
        match = VERSION.search(text)
        assert match, text
        found.add((int(match.group(1)), int(match.group(2))))
    return found


def assert_whole(texts: list[str], positions: list[int]) -> tuple[int, int]:
    """All chunks of one version, each of its sections once."""
    versions = chunk_versions(texts)
    assert len(versions) == 1, f"chunks of several uploads: {sorted(versions)}"
    (version, sections) = next(iter(versions))
    assert sorted(positions) == list(range(sections)), positions
    return version, sections
