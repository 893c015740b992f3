"""Conversations as knowledge: past exchanges indexed, searched, and shown in context.

A stored session is cut into chunks (``chunks.py``): one ``message_exchange`` per
question and its answer, one ``tool_interaction`` per tool turn (kept for browsing,
never embedded) and one ``session_summary``. ``index.py`` keeps the indexed ones in a
collection of their own in the engine the documents use; ``queue.py`` derives from
the store which sessions need (re)indexing, and ``worker.py`` drains that queue in
the server. ``search.py`` returns the best exchanges inside a window of their
neighbours, and ``source.py`` lets a chat turn retrieve them like documents.
"""
