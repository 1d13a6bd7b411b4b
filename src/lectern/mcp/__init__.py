"""Lectern as a tool for other agents: an MCP server (stdio and streamable HTTP) over the engine.

The names below load `lectern.mcp.server` (and the MCP SDK, ~28 MB resident) on first use, not when a
submodule is imported: `lectern serve` imports `lectern.mcp.http` and only needs the SDK once /mcp is asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lectern.mcp.server import Backend, BackendSlot, create_mcp_server, run_stdio, standalone_backend

__all__ = ["Backend", "BackendSlot", "create_mcp_server", "run_stdio", "standalone_backend"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from lectern.mcp import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
