"""The transport-neutral core: runs, their event logs and their interactions. Never imports grpc."""
