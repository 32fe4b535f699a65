"""The one error tree. Every message says what went wrong and what to do next."""

from __future__ import annotations


class KgError(Exception):
    """Base of every error kg raises on purpose. The CLI prints it without a traceback."""

    exit_code = 1


class ConfigError(KgError):
    """kg.toml or the command line asks for something kg cannot do."""

    exit_code = 2


class NotAKnowledgeBase(ConfigError):
    """No kg.toml was found where a knowledge base was expected."""


class SourceError(KgError):
    """One source file cannot be read or compiled (binary, empty, bad UTF-8, too big...)."""


class StoreError(KgError):
    """The graph database failed or refused an operation."""


class GraphOutdated(StoreError):
    """The graph was made by an older kg whose graph cannot be upgraded in place."""


class DatabaseLocked(StoreError):
    """Another process holds the knowledge base's database."""

    exit_code = 3


class ExtractionError(KgError):
    """An extractor backend failed for a chunk after its retries."""


class QueryError(KgError):
    """A Cypher query or a search was malformed."""


class LlmCallFailed(KgError):
    """An LLM request failed after all retries (the message says why and what to do next).
    Here, not in kg/llm/client.py, so that an offline answer does not load the LLM client."""

    #: "cut_off": the reply hit its token limit; "unusable": no reply matched the schema after the
    #: validation re-asks; "error": the server failed, refused or could not be reached.
    reason = "error"


class BundleError(KgError):
    """A shard bundle cannot be read, or fails verification (`kg bundle verify`)."""
