"""Search providers behind one interface, chained for fallback: local corpus, SearXNG, Brave,
Tavily."""
