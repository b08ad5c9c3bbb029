"""The GMEG ensemble metric: features (:mod:`.features`), the ridge model (:mod:`.model`) and its
cross-validation by domain (:mod:`.cross_validation`)."""
