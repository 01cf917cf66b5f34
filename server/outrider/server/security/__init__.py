"""Authentication (keys, client certificates), the access table, and TLS settings."""
