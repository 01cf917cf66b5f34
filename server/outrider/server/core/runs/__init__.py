"""Runs: starting and admitting them, driving their agents, ending them, adopting those a lost
replica left, and reading them back."""
