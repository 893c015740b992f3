"""A streamed structured reply yields only the answer text, whatever the chunking."""

from __future__ import annotations


def test_streamed_structured_reply_yields_only_the_answer_text():
    from threadline.chat import StructuredAnswerStream

    stream = StructuredAnswerStream()
    pieces = [
        '{"verd',
        'ict": "answer", "ans',
        'wer": "Uptime is \\',
        '"99.95%\\" [1]',
        '", "missing": []}',
    ]
    assert "".join(stream.feed(p) for p in pieces) == 'Uptime is "99.95%" [1]'
    plain = StructuredAnswerStream()
    assert plain.feed("Plain ") + plain.feed("text [1]") == "Plain text [1]"
