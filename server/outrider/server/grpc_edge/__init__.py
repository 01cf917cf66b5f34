"""The gRPC edge: thin servicers over the core, one error mapping, auth, health and reflection."""
