"""Fetching web pages for research: guarded, polite, cached, and reduced to their main text."""
