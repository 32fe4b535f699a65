"""The served faces of a knowledge base, side by side over kg/api.py (as the CLI, kg/cli.py, is):
the web pages and their JSON (web/, `kg serve`) and the MCP tools (mcp/, `kg mcp` and /mcp).
Shared parts: reading.py (every read in a worker, waiting a while for a writer), vectors.py
(the server's vectors, embedded in the background). watch.py is `kg watch`."""
