"""The REST/SSE edge: Tabstack's /v1/automate and /v1/research over the same core as gRPC."""
