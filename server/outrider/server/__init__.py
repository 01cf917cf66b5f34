"""Outrider server: the core (runs, events, interactions), the agents, and the transport edges."""
