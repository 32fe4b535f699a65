"""`kg serve`: the knowledge base on the web, for people (pages rendered from the graph, an
entity's neighbourhood drawn with cytoscape.js served from static/) and for programs (JSON in the
CLI's shapes, MCP over streamable HTTP at /mcp). See app.py for how the parts fit."""
