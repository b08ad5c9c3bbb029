"""Published tables reproduced from the papers' own data (Napoles et al. 2015, Sakaguchi et al. 2016)."""
