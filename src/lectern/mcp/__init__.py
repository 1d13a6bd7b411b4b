"""Lectern as a tool for other agents: an MCP server (stdio and streamable HTTP) over the engine."""

from lectern.mcp.server import Backend, BackendSlot, create_mcp_server, run_stdio, standalone_backend

__all__ = ["Backend", "BackendSlot", "create_mcp_server", "run_stdio", "standalone_backend"]
