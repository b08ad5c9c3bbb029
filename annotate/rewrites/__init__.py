"""Rewrite collection: campaigns, slot assignment, qualification screening and expert review."""
