"""ERRANT: annotation through the ``errant`` package (:mod:`.annotation`) and our compare step (:mod:`.scorer`)."""
