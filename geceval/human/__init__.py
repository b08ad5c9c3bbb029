"""Human judgments' statistics: PRWS, TrueSkill and Expected Wins, agreement, evidence against workers."""
