"""Serving a knowledge base to agents: `kg mcp` (kg/serve/mcp.py) over the library calls the CLI
makes (kg/serve/tools.py), every reply bounded and paged."""
