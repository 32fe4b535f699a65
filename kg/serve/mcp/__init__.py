"""The MCP face: `kg mcp` over stdio and /mcp of `kg serve` (server.py, the official `mcp` SDK),
over tools that call kg/api.py as the CLI does (tools.py), every reply bounded and paged."""

from kg.serve.mcp.server import READ_TOOLS, build_server

__all__ = ["READ_TOOLS", "build_server"]
