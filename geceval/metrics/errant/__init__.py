"""ERRANT: annotation through the ``errant`` package (:mod:`.annotation`), our compare step
(:mod:`.scorer`), and the metric object with the inputs the ERRANT-based metrics share (:mod:`.metric`)."""
