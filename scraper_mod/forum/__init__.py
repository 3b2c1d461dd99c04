"""phpBB: the HTTP client, the page parser (pure) and the incremental poller."""
