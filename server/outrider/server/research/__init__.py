"""The research agent: plan, search, fetch, analyse, evaluate, write a cited report, judge."""
