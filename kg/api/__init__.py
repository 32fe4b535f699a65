"""What kg does, as plain functions over a KnowledgeBase: the one surface every face reads and
writes through (the CLI, the web pages and their JSON, the MCP tools). No printing here.

By concern: `build` (init, ingest, compile, render, merges), `reads` (claims, entities, status,
Cypher, search, questions, lint), `browse` (what the web pages show), `learning` (cards, exports,
bundles), `limits` (the size of inputs, the time and memory of reads), `stores` (opening the
graph). `from kg import api; api.compile_kb(...)` reaches them all. Each module loads its heavy
dependencies inside the calls that need them: a read command starts without the compile pipeline.
"""

from kg.api.browse import (
    ANSWER_FILES,
    NotFound,
    answer_file,
    answer_page,
    claim_page,
    contradictions_page,
    entity_id_named,
    entity_list_page,
    entity_page,
    entity_with_claims,
    home_page,
    log_page,
    open_graph,
    search_page,
    source_list_page,
    source_page,
)
from kg.api.build import (
    compact_kb,
    compile_kb,
    entity_merge,
    explain,
    ingest,
    init_kb,
    merge_kb,
    pending_marker,
    render_kb,
    render_kb_wiki,
    select_sources,
)
from kg.api.learning import (
    bundle_export,
    bundle_keygen,
    bundle_verify,
    card_writer,
    cards_kb,
    export_anki,
    export_canvas,
    export_finetune,
    export_slides,
    review_due,
    review_rate,
    write_export,
)
from kg.api.limits import (
    MAX_BUDGET,
    MAX_CYPHER_CHARS,
    MAX_NAME_CHARS,
    MAX_TEXT_CHARS,
    MIN_BUDGET,
    ReadTimeout,
    ReadTooLarge,
    bounded,
    check_text,
    read_limits,
    reader,
)
from kg.api.reads import (
    ANSWER_FORMS,
    CypherRows,
    Status,
    answer_question,
    claim_show,
    cypher,
    entity_show,
    form_file,
    lint_kb,
    parse_param,
    prepare_vectors,
    query_kb,
    save_answer_kb,
    search_kb,
    status,
)
from kg.api.stores import graph_stamp, graph_store, open_store, writer_lock

__all__ = [
    "ANSWER_FILES", "ANSWER_FORMS", "MAX_BUDGET", "MAX_CYPHER_CHARS", "MAX_NAME_CHARS", "MAX_TEXT_CHARS", "MIN_BUDGET", "CypherRows", "NotFound",
    "ReadTimeout", "ReadTooLarge", "Status", "answer_file", "answer_page", "answer_question", "bounded", "bundle_export",
    "bundle_keygen", "bundle_verify", "card_writer", "cards_kb", "check_text", "claim_page", "claim_show",
    "compact_kb", "compile_kb", "contradictions_page", "cypher", "entity_id_named", "entity_list_page",
    "entity_merge", "entity_page", "entity_show", "entity_with_claims", "explain", "export_anki", "export_canvas", "export_finetune",
    "export_slides", "form_file", "graph_stamp", "graph_store", "home_page", "ingest", "init_kb", "lint_kb", "log_page",
    "merge_kb", "open_graph", "open_store", "parse_param", "pending_marker", "prepare_vectors", "query_kb",
    "read_limits", "reader", "render_kb", "render_kb_wiki", "review_due", "review_rate", "save_answer_kb",
    "search_kb", "search_page", "select_sources", "source_list_page", "source_page", "status", "write_export", "writer_lock",
]
