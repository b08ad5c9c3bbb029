"""Analysis runs and their results (imported into ranking.models so Django finds them)."""
