"""The long-lived parts a turn needs, built lazily from settings, once per process.

The graph, the API and the CLI all take a `Services`; tests build one on a
temporary data directory. Nothing heavy happens until a part is first used.
"""

from __future__ import annotations

import threading
from functools import cached_property
from typing import TYPE_CHECKING

from langchain_core.language_models import BaseChatModel

from threadline.conversations.index import ConversationIndex
from threadline.knowledge.bilingual import preload_lexicons
from threadline.knowledge.embeddings import EmbeddingSetup
from threadline.knowledge.index import KnowledgeBase
from threadline.models import create_chat_model
from threadline.querylog import QueryLog
from threadline.settings import Settings, get_settings
from threadline.store import ConversationStore, ConversationStoreProtocol

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from threadline.querylog_pg import PostgresQueryLog


class Services:
    """Store, knowledge base, chat model and queries log for one process."""

    def __init__(
        self,
        settings: Settings,
        *,
        llm: BaseChatModel | None = None,
        embeddings: EmbeddingSetup | None = None,
    ) -> None:
        """Keep the settings; parts are created on first use.

        Args:
            settings: Process settings.
            llm: A chat model to use instead of the configured one.
            embeddings: Embeddings to use instead of the configured ones (benchmarks
                wrap the configured model in a cache).
        """
        self.settings = settings
        self._llm = llm
        self._embeddings = embeddings
        self._build_lock = threading.Lock()

    @cached_property
    def pool(self) -> ConnectionPool:
        """The PostgreSQL connection pool (only with ``THREADLINE_DATABASE_URL``)."""
        from threadline.store.postgres import open_pool

        settings = self.settings
        if settings.database_url is None:
            raise RuntimeError("no THREADLINE_DATABASE_URL: the store is the JSON files")
        return open_pool(
            settings.database_url.get_secret_value(),
            max_size=settings.database_pool_size,
            statement_timeout=settings.database_statement_timeout,
            lock_timeout=settings.lock_timeout,
        )

    @cached_property
    def store(self) -> ConversationStoreProtocol:
        """The conversation store: PostgreSQL when a database URL is set, else JSON files.

        Raises:
            SchemaVersionError: If the database's schema is not this code's version.
        """
        if self.settings.database_url is not None:
            from threadline.store.postgres import PostgresStore

            return PostgresStore(self.pool, lock_timeout=self.settings.lock_timeout)
        return ConversationStore(
            self.settings.sessions_dir, lock_timeout=self.settings.lock_timeout
        )

    @cached_property
    def kb(self) -> KnowledgeBase:
        """The knowledge base (opens the vector engine), built once however many threads ask."""
        with self._build_lock:
            # cached_property has no lock of its own since Python 3.12: threads racing the
            # first use all get here, and those after the first take its base instead of
            # opening the engine a second time.
            if "kb" not in self.__dict__:
                self.__dict__["kb"] = KnowledgeBase(self.settings, embeddings=self._embeddings)
                # The bilingual lexicon (10k entries) takes about a second to index: paid
                # here, with the engine and the models, not inside a first turn's deadline.
                preload_lexicons()
            return self.__dict__["kb"]

    @cached_property
    def conversations(self) -> ConversationIndex:
        """The conversation index (its own collection in the documents' engine)."""
        with self._build_lock:
            if "conversations" not in self.__dict__:
                self.__dict__["conversations"] = ConversationIndex(
                    self.settings, embeddings=self._embeddings
                )
            return self.__dict__["conversations"]

    @cached_property
    def llm(self) -> BaseChatModel:
        """The chat model."""
        return self._llm or create_chat_model(self.settings)

    @cached_property
    def querylog(self) -> QueryLog | PostgresQueryLog:
        """The queries log: PostgreSQL's `queries_log` with a database URL, else SQLite."""
        if self.settings.database_url is not None:
            from threadline.querylog_pg import PostgresQueryLog

            return PostgresQueryLog(self.pool)
        return QueryLog(self.settings.queries_log_path)

    def close(self) -> None:
        """Release the vector engine, the queries log and the database pool if opened.

        The services stay usable: a part used again afterwards is built anew.
        """
        # Each closed part is dropped, so a later use builds it again instead of
        # getting a closed one.
        if "kb" in self.__dict__:
            self.__dict__.pop("kb").close()
        if "conversations" in self.__dict__:
            self.__dict__.pop("conversations").close()
        if "querylog" in self.__dict__:
            self.__dict__.pop("querylog").close()
        if "pool" in self.__dict__:
            self.pool.close()
            # The store and log lent connections from it: built again on next use.
            for name in ("pool", "store", "querylog"):
                self.__dict__.pop(name, None)


_default: Services | None = None
_default_lock = threading.Lock()


def get_services() -> Services:
    """Return the process-wide services (used by LangGraph Studio and the CLI)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Services(get_settings())
        return _default
