"""Readers and writers of GEC file formats. Malformed input raises GecInputError."""
