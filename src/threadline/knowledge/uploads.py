"""An uploaded file and its form fields, made into one document ready to index.

The HTTP route only reads the request; what the bytes become (converted text,
front matter, the caller's overrides and extra metadata, merged and bounded) is
decided here, so the rules hold for any caller and are tested without a server.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from threadline.knowledge.converters import DEFAULT_LIMITS, ExtractionLimits, to_markdown
from threadline.knowledge.documents import (
    MAX_METADATA_BYTES,
    DocumentError,
    SourceDocument,
    check_metadata,
    load_document,
    refuse_unstorable,
    unindexable_number,
)
from threadline.text.storable import unstorable_text
from threadline.unique_json import (
    DUPLICATE_KEY_CODE,
    RepeatedJsonKey,
    TooManyJsonKeys,
    UnstorableJsonNumber,
    loads_unique,
)

UPLOADS_SOURCE = "uploads"


def parse_metadata_json(metadata: str | None) -> dict[str, Any]:
    """Parse a `metadata` field sent as JSON text into a bounded JSON object.

    Args:
        metadata: The JSON text, or None / empty for no extra metadata.

    Returns:
        The object (empty when nothing was sent).

    Raises:
        DocumentError: `validation_error` (422) for anything but a JSON object, or
            one holding text or a number no index can store (NUL, a lone surrogate;
            NaN, infinity, an integer past 64 bits);
            `duplicate_json_key` (422) for an object naming a key twice (which one
            wins depends on the parser: the one a check in front of us read, or not);
            `metadata_too_large` (400) for one too big or too deep to store on every
            chunk.
    """
    if not metadata:
        return {}
    if len(metadata.encode("utf-8")) > MAX_METADATA_BYTES:
        raise DocumentError(
            f"metadata is limited to {MAX_METADATA_BYTES} bytes", code="metadata_too_large"
        )
    try:
        extra = loads_unique(metadata)
    except RepeatedJsonKey as exc:  # before ValueError: it is one
        raise DocumentError(
            f"metadata: {exc}; each key may appear once",
            code=DUPLICATE_KEY_CODE,
            status=422,
        ) from exc
    except UnstorableJsonNumber as exc:  # before ValueError: it is one
        raise DocumentError(f"metadata: {exc}", code="validation_error", status=422) from exc
    except TooManyJsonKeys as exc:
        raise DocumentError(f"metadata: {exc}", code="metadata_too_large") from exc
    except RecursionError as exc:
        raise DocumentError("metadata is nested too deeply", code="metadata_too_large") from exc
    except ValueError as exc:
        raise _not_an_object() from exc
    if not isinstance(extra, dict):
        raise _not_an_object()
    problem = unstorable_text(extra, "metadata")
    if problem:  # JSON escapes can spell a lone surrogate, which no index can store
        raise DocumentError(
            f"metadata holds text that cannot be stored: {problem}",
            code="validation_error",
            status=422,
        )
    problem = unindexable_number(extra, "metadata")
    if problem:
        raise DocumentError(problem, code="validation_error", status=422)
    check_metadata(extra)
    return extra


def _not_an_object() -> DocumentError:
    return DocumentError("metadata must be a JSON object", code="validation_error", status=422)


def document_from_upload(
    data: bytes,
    *,
    suffix: str,
    filename: str,
    limits: ExtractionLimits = DEFAULT_LIMITS,
    doc_id: str | None = None,
    title: str | None = None,
    source: str | None = None,
    metadata: str | None = None,
) -> SourceDocument:
    """Convert an uploaded file and apply the uploader's fields over its front matter.

    Args:
        data: The file's bytes.
        suffix: Its type, as a supported file suffix (".md", ".pdf", ...).
        filename: Its bare name (gives the default id and title; never a path).
        limits: What extraction may cost.
        doc_id: The id to store it under (default: from the front matter or name).
        title: Its title (default: front matter, converted title, first heading, name).
        source: Its source (default: front matter, else "uploads").
        metadata: Extra metadata as JSON text, merged over the front matter's.

    Returns:
        The document, with no file path (an upload has none worth storing).

    Raises:
        DocumentError: for bad metadata (see `parse_metadata_json`), an unreadable or
            too large file, merged metadata too big to store, or a file with no text
            (`unreadable_document`).
    """
    extra = parse_metadata_json(metadata)
    text, converted_title = to_markdown(data, suffix, limits)
    doc = load_document(
        Path(filename), raw=text, title_hint=converted_title, default_source=UPLOADS_SOURCE
    )
    merged = {**doc.metadata, **extra}
    check_metadata(merged)
    doc = replace(
        doc,
        doc_id=(doc_id or doc.doc_id).lower(),
        name=None if doc_id else doc.name,
        title=title or doc.title,
        source=source or doc.source,
        path=None,
        metadata=merged,
    )
    if not doc.text.strip():
        raise DocumentError("The document has no text.")
    return refuse_unstorable(doc)
