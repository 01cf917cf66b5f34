"""Network policy shared by the browser agent and the research fetcher."""
