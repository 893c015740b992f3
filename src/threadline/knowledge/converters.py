"""Turn uploaded or ingested files (Markdown, text, HTML, PDF) into Markdown text.

HTML headings become Markdown headings so chunks still follow sections; a PDF
gives its text page by page (PDFs carry no reliable heading structure).
"""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser

from threadline.knowledge.documents import DocumentError

SUPPORTED_SUFFIXES = {".md", ".markdown", ".txt", ".text", ".html", ".htm", ".pdf"}
CONTENT_TYPES = {
    "text/markdown": ".md",
    "text/x-markdown": ".md",
    "text/plain": ".txt",
    "text/html": ".html",
    "application/xhtml+xml": ".html",
    "application/pdf": ".pdf",
}


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


def pdf_to_text(data: bytes) -> tuple[str, str | None]:
    """Text and title of a PDF.

    Raises:
        DocumentError: for an unreadable, encrypted or text-less PDF.
    """
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise DocumentError("encrypted PDFs are not supported")
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
        title = (reader.metadata.title if reader.metadata else None) or None
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise DocumentError(f"unreadable PDF: {exc}") from exc
    text = "\n\n".join(p for p in pages if p)
    if not text.strip():
        raise DocumentError("the PDF has no extractable text (scanned images need OCR)")
    return text, (str(title).strip() or None) if title else None


def to_markdown(data: bytes, suffix: str) -> tuple[str, str | None]:
    """Convert file bytes of a supported type to Markdown/plain text and an optional title.

    Raises:
        DocumentError: for an unsupported type or content that cannot be decoded.
    """
    suffix = suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise DocumentError(f"unsupported file type {suffix or '(none)'}")
    if suffix == ".pdf":
        return pdf_to_text(data)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError("not UTF-8 text") from exc
    if suffix in {".html", ".htm"}:
        return html_to_markdown(text)
    return text, None
