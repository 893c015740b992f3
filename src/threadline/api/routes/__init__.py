"""One router per resource (chat, sessions, documents, health, web, OpenAI-compatible)."""
