"""A run's secrets: redaction of what the caller marked secret, in events, logs and stored runs."""
