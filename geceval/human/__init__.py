"""Human judgments of GEC systems: rankings of systems from pairwise judgments (TrueSkill, Expected Wins)."""
