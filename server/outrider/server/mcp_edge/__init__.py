"""The MCP edge: Outrider's MCP server (outrider.mcp) over streamable HTTP at /mcp on the REST
port, for the same principals as the other edges, with a backend calling the core in process.
It imports the core and security/ only, never another edge."""
