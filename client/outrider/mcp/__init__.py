"""Outrider as an MCP server: the `automate` and `research` agents and their runs as MCP tools,
their questions asked through the client (elicitation), on the official `mcp` SDK.

One server implementation over a `Backend` (backend.py), served twice:
- by the Outrider server itself, over streamable HTTP at `/mcp` on the REST port, with a
  backend calling the core in process (outrider.server.mcp_edge);
- by `outrider mcp --target host:port`, over stdio for desktop clients, with a backend calling
  a running server over gRPC (grpc_backend.py, the Python client library).

server.py builds the MCP `Server` (tools and their calls); watch.py follows a run, turning its
events into progress notifications and its questions into elicitations (pushed on sessions of
the initialize handshake, returned as multi-round-trip input requests on 2026-07-28);
questions.py, progress.py and results.py map the contract to MCP and back.
"""
