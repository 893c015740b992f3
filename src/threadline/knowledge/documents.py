"""Loading documents from files and cutting them into heading-aware chunks.

A chunk knows its document, the document title, the heading path of its
section and its position in the document, so that answers can cite it, outlines
can name it, and context windows can find its neighbours.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from langchain_text_splitters import RecursiveCharacterTextSplitter

# DocumentError is defined beside the converters, the lowest layer that raises it, and
# imported from here by most callers.
from threadline.knowledge.converters import DocumentError, to_markdown
from threadline.text.storable import unstorable_text

# Part of every content hash: changing how chunks are cut re-ingests unchanged files.
CHUNKER_VERSION = "headings-v2"  # v2: headings inside fenced code are code
TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".text", ".html", ".htm", ".pdf"}
CATALOG_SUFFIXES = {".json"}

# Chunk ids are UUIDv5 so Qdrant accepts them and re-ingesting gives the same ids.
_CHUNK_NAMESPACE = uuid.UUID("6f1d3c2a-9b7e-4c1a-8f3e-2d5b7a9c0e41")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
# A code fence (CommonMark): three or more backticks or tildes, indented at most 3 spaces.
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.DOTALL)
_DOC_ID = re.compile(r"[^a-z0-9._-]+")


# Front matter is a few lines of metadata; anything bigger or deeper is an attack or a
# mistake, refused before it costs memory (YAML aliases can expand a few hundred bytes
# into gigabytes) or lands in the payload of every chunk.
MAX_FRONT_MATTER_BYTES = 16 * 1024
MAX_METADATA_DEPTH = 8
MAX_METADATA_BYTES = 8 * 1024
# The fields every chunk's payload holds for the index itself (`payloads.chunk_payload`):
# a document's own metadata may not name them, or its value would be overwritten by the
# index's without a word (or, for `source_app` and `workspace`, set where the upload form
# did not).
RESERVED_METADATA_KEYS = frozenset(
    {
        "tenant", "doc_id", "chunk_id", "title", "section", "position", "source", "text",
        "path", "doc_name", "updated_at", "content_hash", "chunk_count", "generation",
        "staged_for", "source_app", "workspace",
    }
)  # fmt: skip
MAX_TITLE_CHARS = 300
MAX_SOURCE_CHARS = 128
# A file name gives a document's id and is stored with it: at most what filesystems
# hold in one name (NAME_MAX), and at most an id's length once made an id.
MAX_FILE_NAME_CHARS = 255


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader without aliases and with a nesting limit.

    Aliases are what make a "billion laughs" document expand; front matter has no
    use for them. The nesting limit keeps the composer's recursion shallow.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise DocumentError(
                "front matter may not use YAML aliases (*name)", code="invalid_front_matter"
            )
        self._depth += 1
        try:
            if self._depth > MAX_METADATA_DEPTH:
                raise DocumentError(
                    f"front matter is nested deeper than {MAX_METADATA_DEPTH} levels",
                    code="invalid_front_matter",
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def check_metadata(meta: dict[str, Any], *, what: str = "metadata") -> None:
    """Refuse metadata too deep or too big to store on every chunk.

    Raises:
        DocumentError: `reserved_metadata_key` (422) for a key the index stores its own
            value under; `metadata_too_large` (400).
    """
    reserved = sorted(RESERVED_METADATA_KEYS.intersection(meta))
    if reserved:
        raise DocumentError(
            f"{what} may not name {', '.join(reserved)}: the index stores its own value"
            " there (set the title, source, source_app and workspace with their own fields)",
            code="reserved_metadata_key",
            status=422,
        )
    if _depth(meta) > MAX_METADATA_DEPTH:
        raise DocumentError(
            f"{what} is nested deeper than {MAX_METADATA_DEPTH} levels", code="metadata_too_large"
        )
    size = len(json.dumps(meta, ensure_ascii=False, default=str).encode("utf-8"))
    if size > MAX_METADATA_BYTES:
        raise DocumentError(
            f"{what} takes {size} bytes; at most {MAX_METADATA_BYTES} are kept per document",
            code="metadata_too_large",
        )


INDEXABLE_INTEGERS = range(-(2**63), 2**63)
"""Integers a chunk's payload holds: 64-bit, as every engine stores them."""


def unindexable_number(value: Any, what: str) -> str | None:
    """Say where a metadata value holds a number no chunk payload can hold, or None.

    YAML (`.nan`, `.inf`, `999...`) and Python's JSON parser (`NaN`, `Infinity`,
    `1e999`, integers of any size) read numbers JSON and the engines cannot store: the
    write failed inside the engine (a 500, and `threadline ingest` stopped on it).
    """
    for _, item in _nested(value):
        if isinstance(item, float) and not math.isfinite(item):
            return f"{what} holds {item}, which is not a JSON number"
        if isinstance(item, int) and item not in INDEXABLE_INTEGERS:
            return f"{what} holds an integer outside 64 bits"
    return None


def _nested(value: Any) -> Iterator[tuple[int, Any]]:
    """Yield `value` and every value nested in it, each with the containers around it.

    Walked with a stack, not recursion: metadata is untrusted. Depth first, so a walk
    stopped at the first value too deep reads little of a wide value.
    """
    stack: list[tuple[int, Any]] = [(0, value)]
    while stack:
        level, item = stack.pop()
        yield level, item
        if isinstance(item, dict):
            stack.extend((level + 1, v) for v in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((level + 1, v) for v in item)


def _depth(value: Any) -> int:
    """Nesting depth (a flat mapping is 1), stopping as soon as it passes the limit."""
    deepest = 0
    for level, item in _nested(value):
        if isinstance(item, dict | list | tuple):
            deepest = max(deepest, level + 1)
            if deepest > MAX_METADATA_DEPTH:
                break
    return deepest


@dataclass(frozen=True)
class SourceDocument:
    """A whole document before chunking."""

    doc_id: str
    title: str
    text: str
    source: str
    path: str | None
    updated_at: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    name: str | None = None
    """The file name (its path under the ingest root, without suffix) the id was made
    from; None when the id was given (a form field, front matter `id`). Ids keep only
    some characters, so two names can give one id ("a b" and "a-b"): the index refuses a
    name whose id a document of another name holds (`name_key`)."""

    @property
    def id_name(self) -> str | None:
        """Return the name the id was made from, or None when the id was given.

        A document whose id was replaced after it was read (`dataclasses.replace`) no
        longer has the id its name gives: that id was given.
        """
        if self.name is None or id_from_name(self.name) != self.doc_id:
            return None
        return self.name

    @property
    def content_hash(self) -> str:
        """Hash of everything that changes the chunks, for idempotent ingestion."""
        digest = hashlib.sha256(CHUNKER_VERSION.encode())
        for part in (self.doc_id, self.title, self.source, self.updated_at or "", self.text):
            digest.update(part.encode("utf-8"))
            digest.update(b"\x00")
        digest.update(repr(sorted(self.metadata.items())).encode("utf-8"))
        return digest.hexdigest()[:32]


@dataclass(frozen=True)
class Chunk:
    """One retrievable passage of a document."""

    chunk_id: str
    doc_id: str
    title: str
    section: str
    position: int
    text: str
    source: str
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def embedding_text(self) -> str:
        """Text the embeddings see: the title and heading give a passage its topic."""
        heading = f"{self.title} — {self.section}" if self.section else self.title
        return f"{heading}\n{self.text}"


_NAME_DIGEST_CHARS = 10


def id_from_name(name: str) -> str:
    """Return the document id a name (a file's path or stem, a front matter `id`) gives.

    Ids keep ASCII letters, digits and `. _ -`. A name holding other letters (`Отчёт
    2024`, `日本`) used to lose them: `Отчёт 2024` and `План 2024` were both `2024`, and
    every fully non-Latin name was `document`, so each upload replaced the last one.
    Such a name gets a short hash of the whole name (NFC, lowercased) after what the id
    keeps, so names differing only in those letters stay different documents; an ASCII
    name gives the id it always gave.
    """
    folded = unicodedata.normalize("NFC", name).lower()
    slug = _DOC_ID.sub("-", folded).strip("-./")
    if folded.isascii():
        return slug or "document"
    # surrogatepass: a lone surrogate (JSON escapes spell one) is refused once the whole
    # document is checked (`refuse_unstorable`), with the API's error, not here.
    raw = folded.encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(raw).hexdigest()[:_NAME_DIGEST_CHARS]
    kept = slug[: MAX_SOURCE_CHARS - _NAME_DIGEST_CHARS - 1].rstrip("-./")
    return f"{kept or 'document'}-{digest}"


def name_key(name: str) -> str:
    """Return what two names must share to be one document's: NFC, lowercased.

    The same folding ids are made with: `Résumé` typed composed or decomposed (macOS),
    `Handbook` or `handbook`, name one document.
    """
    return unicodedata.normalize("NFC", name).lower()


def name_for(path: Path, root: Path | None) -> str:
    """Return the name a file's id is made from: its path under the ingest root, no suffix."""
    rel = path.relative_to(root) if root is not None and path.is_relative_to(root) else path
    return rel.with_suffix("").as_posix()


def doc_id_for(path: Path, root: Path | None) -> str:
    """Derive a stable document id from a file path relative to its ingest root."""
    return id_from_name(name_for(path, root))


def _refuse_long_name(name: str, doc_id: str) -> None:
    """Refuse a file name too long to keep, or whose id would be.

    Raises:
        DocumentError: 422 `filename_too_long`.
    """
    if len(name) > MAX_FILE_NAME_CHARS or len(doc_id) > MAX_SOURCE_CHARS:
        raise DocumentError(
            f"a file name is at most {MAX_FILE_NAME_CHARS} characters and gives an id of at "
            f"most {MAX_SOURCE_CHARS} ({len(name)} characters, id of {len(doc_id)}); "
            "rename the file",
            code="filename_too_long",
            status=422,
        )


def parse_front_matter(raw: str) -> tuple[dict[str, Any], str]:
    """Split an optional YAML front matter block from the body.

    Raises:
        DocumentError: if the front matter is not a YAML mapping, or holds text no
            index can store (NUL, a lone surrogate).
    """
    if not raw.startswith("---"):
        return {}, raw
    # Look for the closing line only within the size limit: a missing one must not make
    # the pattern scan (and the YAML parser read) a whole large document.
    head = raw[: MAX_FRONT_MATTER_BYTES + 8]
    match = _FRONT_MATTER.match(head)
    if not match:
        if len(raw) > len(head) and _FRONT_MATTER.match(raw) is not None:
            raise DocumentError(
                f"front matter is larger than {MAX_FRONT_MATTER_BYTES} bytes",
                code="invalid_front_matter",
            )
        return {}, raw
    block = match.group(1)
    if len(block.encode("utf-8")) > MAX_FRONT_MATTER_BYTES:
        raise DocumentError(
            f"front matter is larger than {MAX_FRONT_MATTER_BYTES} bytes",
            code="invalid_front_matter",
        )
    try:
        meta = yaml.load(block, Loader=_BoundedLoader) or {}  # noqa: S506 - safe loader subclass
    except yaml.YAMLError as exc:
        raise DocumentError(
            f"invalid YAML front matter: {exc}", code="invalid_front_matter"
        ) from exc
    except RecursionError as exc:
        raise DocumentError(
            "front matter is nested too deeply", code="invalid_front_matter"
        ) from exc
    except (ValueError, OverflowError) as exc:  # a value its constructor refuses: 2024-13-45
        raise DocumentError(
            f"invalid YAML front matter: {exc}", code="invalid_front_matter"
        ) from exc
    if not isinstance(meta, dict):
        raise DocumentError("front matter must be a YAML mapping", code="invalid_front_matter")
    # YAML escapes ("\ud800", "\0") can spell text no index can store.
    plain = _plain(meta)
    problem = unstorable_text(plain, "front matter")
    if problem:
        raise DocumentError(
            f"front matter holds text that cannot be stored: {problem}",
            code="invalid_front_matter",
        )
    problem = unindexable_number(plain, "front matter")
    if problem:
        raise DocumentError(problem, code="invalid_front_matter")
    return meta, raw[match.end() :]


def load_document(
    path: Path,
    *,
    root: Path | None = None,
    raw: str | None = None,
    title_hint: str | None = None,
    default_source: str | None = None,
) -> SourceDocument:
    """Read a Markdown, text, HTML or PDF file into a `SourceDocument`.

    Args:
        path: The file (its name gives the default id and title).
        root: The ingest root the id is made relative to.
        raw: The text when it was already read and converted (uploads).
        title_hint: A title found by the converter (HTML <title>, PDF metadata).
        default_source: The source when the front matter names none.

    Raises:
        DocumentError: on undecodable bytes or bad front matter.
    """
    converted_title = title_hint
    if raw is None:
        try:
            raw, converted_title = to_markdown(path.read_bytes(), path.suffix)
        except DocumentError as exc:
            raise DocumentError(f"{path}: {exc}") from exc
    raw = raw.replace("\r\n", "\n").lstrip("\ufeff")
    meta, body = parse_front_matter(raw)
    title = (
        str(meta.pop("title", "") or "").strip()
        or converted_title
        or _first_heading(body)
        or path.stem
    )
    source = (
        str(meta.pop("source", "") or "").strip()
        or default_source
        or (path.parent.name or "documents")
    )
    updated = meta.pop("updated_at", None)
    given_id = str(meta.pop("id", "") or "").strip()
    name = None if given_id else name_for(path, root)
    doc_id = given_id
    if name is not None:
        doc_id = id_from_name(name)
        _refuse_long_name(name, doc_id)
    extra = {str(k): _plain(v) for k, v in meta.items()}
    check_metadata(extra, what="front matter")
    # A title is for display: a long first heading is cut, not refused.
    title = cut_for_display(title)
    if max(len(source), len(doc_id)) > MAX_SOURCE_CHARS:
        raise DocumentError(
            f"a source and an id are at most {MAX_SOURCE_CHARS} characters",
            code="metadata_too_large",
        )
    return refuse_unstorable(
        SourceDocument(
            doc_id=id_from_name(doc_id),
            title=title,
            text=body.strip(),
            source=source,
            path=str(path),
            updated_at=str(updated) if updated is not None else None,
            metadata=extra,
            name=name,
        )
    )


def refuse_unstorable(doc: SourceDocument) -> SourceDocument:
    """Return the document, or refuse one holding text no store can keep (NUL, lone surrogate).

    Passages and titles are copied into answers, citations and the conversation store
    (PostgreSQL refuses NUL), so a document that holds such text is refused whole, as
    a question or a title is.

    Raises:
        DocumentError: 400 `unreadable_document` for the text, 422 `validation_error`
            for the id, title or source (the request's fields, or the file's name).
    """
    problem = unstorable_text(doc.text, "text")
    if problem:
        raise DocumentError(f"The document's {problem}.")
    problem = (
        unstorable_text(doc.doc_id, "doc_id")
        or unstorable_text(doc.title, "title")
        or unstorable_text(doc.source, "source")
        or unstorable_text(doc.name or "", "file name")
    )
    if problem:
        raise DocumentError(f"The document's {problem}.", code="validation_error", status=422)
    return doc


def _plain(value: Any) -> Any:
    """Make front matter values JSON-friendly (dates become ISO strings)."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def cut_for_display(name: str) -> str:
    """Return a title or heading cut to `MAX_TITLE_CHARS`, marked with an ellipsis."""
    return name if len(name) <= MAX_TITLE_CHARS else name[: MAX_TITLE_CHARS - 1] + "…"


def _headings(lines: Iterable[str]) -> Iterator[tuple[str, re.Match[str] | None]]:
    """Each line with its heading match, None for text and for every line of fenced code.

    A fence closes on a line of at least as many of the same character and nothing
    else; a fence left open runs to the end of the document (as CommonMark reads it).
    """
    fence = ""
    for line in lines:
        if fence:
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = ""
            yield line, None
            continue
        opening = _FENCE.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in line[opening.end() :]):
            fence = opening.group(1)
            yield line, None
            continue
        yield line, _HEADING.match(line)


def _first_heading(body: str) -> str | None:
    for _, match in _headings(body.splitlines()):
        if match:
            return match.group(2).strip()
    return None


def _sections(body: str) -> Iterable[tuple[str, str]]:
    r"""Yield (heading, text) pairs; the document's own H1 title is not a section name.

    A `# comment` inside fenced code is code: it stays in its section, beside the text
    around it. (langchain's Markdown splitters do not fit here: MarkdownHeaderTextSplitter
    rewrites the text it keeps, joining lines with "  \n", dropping blank lines and
    indentation, which would change the chunks of every document; the experimental
    ExperimentalMarkdownSyntaxTextSplitter keeps the text but pops lines off the front
    of a list, quadratic in the line count, cuts at horizontal rules and setext
    underlines, and drops everything after a fence left open.)
    """
    heading_stack: list[tuple[int, str]] = []
    buffer: list[str] = []
    # A leading H1 is the document's own title, even when the front matter words it
    # differently: it names no section.
    doc_heading: tuple[int, str] | None = None
    seen_text = False

    def current() -> str:
        return " > ".join(name for level, name in heading_stack if (level, name) != doc_heading)

    for line, match in _headings(body.splitlines()):
        if match:
            text = "\n".join(buffer).strip()
            if text:
                seen_text = True
                yield current(), text
            first = not heading_stack and not seen_text
            buffer = []
            level = len(match.group(1))
            while heading_stack and heading_stack[-1][0] >= level:
                heading_stack.pop()
            # Cut as a title is: every citation, outline and stored answer repeats the
            # section name, and a heading of 1.5 MB made each turn citing it store 3 MB.
            heading_stack.append((level, cut_for_display(match.group(2).strip())))
            if level == 1 and first and doc_heading is None:
                doc_heading = heading_stack[-1]
            continue
        buffer.append(line)
    text = "\n".join(buffer).strip()
    if text:
        yield current(), text


def chunk_document(
    doc: SourceDocument, *, chunk_size: int = 1200, overlap: int = 150
) -> list[Chunk]:
    """Cut a document into chunks that follow its headings.

    A section longer than `chunk_size` characters is split further on
    paragraphs and sentences, each piece keeping the section heading.
    """
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=chunk_size,
        chunk_overlap=overlap,
        separators=["\n\n", "\n", ". ", " ", ""],
    )
    chunks: list[Chunk] = []
    for section, text in _sections(doc.text):
        pieces = [text] if len(text) <= chunk_size else splitter.split_text(text)
        for piece in pieces:
            position = len(chunks)
            chunk_id = str(uuid.uuid5(_CHUNK_NAMESPACE, f"{doc.doc_id}:{position}"))
            chunks.append(
                Chunk(
                    chunk_id=chunk_id,
                    doc_id=doc.doc_id,
                    title=doc.title,
                    section=section,
                    position=position,
                    text=piece.strip(),
                    source=doc.source,
                    metadata=dict(doc.metadata),
                )
            )
    return chunks


def iter_files(paths: Iterable[Path]) -> list[tuple[Path, Path]]:
    """Expand files and directories into (file, ingest root) pairs, sorted for stable ids."""
    found: list[tuple[Path, Path]] = []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            for file in sorted(path.rglob("*")):
                if file.is_file() and file.suffix.lower() in TEXT_SUFFIXES | CATALOG_SUFFIXES:
                    if not any(part.startswith(".") for part in file.relative_to(path).parts):
                        found.append((file, path))
        elif path.is_file():
            found.append((path, path.parent))
        else:
            raise FileNotFoundError(f"no such file or directory: {path}")
    return found
