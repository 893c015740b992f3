"""A small Markdown document with front matter and nested headings, and a file writer."""

from __future__ import annotations

from pathlib import Path

DOC = """---
title: Travel policy
source: hr
updated_at: 2024-05-01
owner: people-team
---
# Travel policy

## Booking
Trains are booked through the travel desk. Flights need a manager's approval.

## Expenses
Meals are reimbursed up to 40 euros a day.

### Receipts
Every expense needs a receipt uploaded within 30 days.
"""


def write(path: Path, text: str) -> Path:
    """Write UTF-8 text at path, creating its directories; returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
