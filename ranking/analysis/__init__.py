"""Analysis runs over judgment campaigns: rankings, PRWS statistics, metrics, meta-evaluation."""
