"""Tools that reach the web: WebFetch (fetched here) and WebSearch (run by the API)."""
