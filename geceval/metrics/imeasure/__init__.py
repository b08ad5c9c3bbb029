"""The I-measure: the scorer (:mod:`.scorer`) and its 3-way alignment (:mod:`.align`)."""
