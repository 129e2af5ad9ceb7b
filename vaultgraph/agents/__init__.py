"""Agents: the MCP endpoint (`/mcp`) and what its tools return."""
