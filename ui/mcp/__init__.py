"""claimtrace for other assistants: a Model Context Protocol server (`claimtrace mcp`)."""
