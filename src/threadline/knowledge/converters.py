"""Turn uploaded or ingested files (Markdown, text, HTML, PDF) into Markdown text.

HTML headings become Markdown headings so chunks still follow sections; a PDF
gives its text page by page (PDFs carry no reliable heading structure).
"""

from __future__ import annotations

import io
import re
import time
from dataclasses import dataclass
from html.parser import HTMLParser

SUPPORTED_SUFFIXES = {".md", ".markdown", ".txt", ".text", ".html", ".htm", ".pdf"}
CONTENT_TYPES = {
    "text/markdown": ".md",
    "text/x-markdown": ".md",
    "text/plain": ".txt",
    "text/html": ".html",
    "application/xhtml+xml": ".html",
    "application/pdf": ".pdf",
}


class DocumentError(ValueError):
    """A file could not be read as a document (bad encoding, bad front matter...).

    Attributes:
        code: The stable error code the API answers with.
        status: The HTTP status that fits (400 unreadable, 413 too big, 422 refused).
    """

    def __init__(self, message: str, *, code: str = "unreadable_document", status: int = 400):
        """Keep the message, code and status."""
        super().__init__(message)
        self.code, self.status = code, status


@dataclass(frozen=True)
class ExtractionLimits:
    """How much work one file may cost: pages, characters of text, seconds of extraction.

    A small file can hold a lot (a PDF of 50,000 pages sharing one content stream):
    these bound what it turns into, not what it weighs.
    """

    max_pages: int = 2000
    max_chars: int = 2_000_000
    max_seconds: float = 60.0


DEFAULT_LIMITS = ExtractionLimits()


def _too_long(chars: int, limits: ExtractionLimits) -> DocumentError:
    return DocumentError(
        f"the document's text is longer than {limits.max_chars} characters ({chars}+)",
        code="document_too_long",
        status=413,
    )


def _timed_out(limits: ExtractionLimits) -> DocumentError:
    return DocumentError(
        f"extracting the text took longer than {limits.max_seconds:g} s",
        code="extraction_timeout",
        status=422,
    )


class _HtmlToMarkdown(HTMLParser):
    """Keeps headings, paragraphs and list items; drops scripts, styles and navigation."""

    _SKIP = {"script", "style", "noscript", "template", "nav", "footer", "head", "svg"}
    _BLOCKS = {"p", "div", "section", "article", "br", "tr", "table", "ul", "ol", "blockquote"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.skip_depth = 0
        self.prefix = ""
        self.title = ""
        self._in_title = False

    def _flush(self) -> None:
        text = re.sub(r"\s+", " ", "".join(self.current)).strip()
        if text:
            self.lines.append(self.prefix + text)
        self.current, self.prefix = [], ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if tag in self._SKIP:
            self.skip_depth += 1
            return
        if re.fullmatch(r"h[1-6]", tag):
            self._flush()
            self.prefix = "#" * int(tag[1]) + " "
        elif tag == "li":
            self._flush()
            self.prefix = "- "
        elif tag in self._BLOCKS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in self._SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if re.fullmatch(r"h[1-6]", tag) or tag in self._BLOCKS or tag == "li":
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if not self.skip_depth:
            self.current.append(data)


def html_to_markdown(html_text: str) -> tuple[str, str | None]:
    """Markdown text and the page title of an HTML document."""
    parser = _HtmlToMarkdown()
    parser.feed(html_text)
    parser.close()
    parser._flush()
    blocks: list[str] = []
    for line in parser.lines:
        # Headings start a new block; consecutive list items stay together.
        if line.startswith("#") or not (blocks and line.startswith("- ")):
            blocks.append(line)
        else:
            blocks[-1] += "\n" + line
    return "\n\n".join(blocks), (parser.title.strip() or None)


def pdf_to_text(data: bytes, limits: ExtractionLimits = DEFAULT_LIMITS) -> tuple[str, str | None]:
    """Text and title of a PDF, within the limits.

    Raises:
        DocumentError: `unreadable_document` for an unreadable, encrypted or text-less
            PDF; `decompression_bomb` when a stream inflates past pypdf's limits;
            `too_many_pages` / `document_too_long` (413) and `extraction_timeout` (422)
            past `limits`.
    """
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError, PdfReadError, PyPdfError

    started = time.monotonic()
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise DocumentError("encrypted PDFs are not supported")
        # The page tree's own count first: cheap, and enough to refuse most big files
        # before pypdf walks the whole tree.
        declared = _declared_page_count(reader)
        if declared > limits.max_pages or len(reader.pages) > limits.max_pages:
            raise DocumentError(
                f"the PDF has more than {limits.max_pages} pages",
                code="too_many_pages",
                status=413,
            )
        pages: list[str] = []
        chars = 0
        for page in reader.pages:
            if time.monotonic() - started > limits.max_seconds:
                raise _timed_out(limits)
            text = (page.extract_text() or "").strip()
            chars += len(text)
            if chars > limits.max_chars:
                raise _too_long(chars, limits)
            pages.append(text)
        if time.monotonic() - started > limits.max_seconds:
            raise _timed_out(limits)
        title = (reader.metadata.title if reader.metadata else None) or None
    except LimitReachedError as exc:
        raise DocumentError(
            f"the PDF inflates past the decompression limits: {exc}", code="decompression_bomb"
        ) from exc
    except RecursionError as exc:
        raise DocumentError("unreadable PDF: its objects are nested too deeply") from exc
    except MemoryError as exc:
        raise DocumentError(
            "the PDF inflates past the memory available", code="decompression_bomb"
        ) from exc
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
        if isinstance(exc, DocumentError):
            raise
        raise DocumentError(f"unreadable PDF: {exc}") from exc
    text = "\n\n".join(p for p in pages if p)
    if not text.strip():
        raise DocumentError("the PDF has no extractable text (scanned images need OCR)")
    return text, (str(title).strip() or None) if title else None


def _declared_page_count(reader: object) -> int:
    """Return the /Count of the PDF's page tree root (0 when missing or not a number)."""
    try:
        count = reader.trailer["/Root"]["/Pages"]["/Count"]  # type: ignore[attr-defined]
        return int(count)
    except (KeyError, TypeError, ValueError, AttributeError):
        return 0


def to_markdown(
    data: bytes, suffix: str, limits: ExtractionLimits = DEFAULT_LIMITS
) -> tuple[str, str | None]:
    """Convert file bytes of a supported type to Markdown/plain text and an optional title.

    Raises:
        DocumentError: for an unsupported type, content that cannot be decoded, or a
            file past `limits` (see `pdf_to_text`).
    """
    suffix = suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise DocumentError(f"unsupported file type {suffix or '(none)'}")
    if suffix == ".pdf":
        return pdf_to_text(data, limits)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError("not UTF-8 text") from exc
    if len(text) > limits.max_chars:
        raise _too_long(len(text), limits)
    if suffix in {".html", ".htm"}:
        return html_to_markdown(text)
    return text, None
