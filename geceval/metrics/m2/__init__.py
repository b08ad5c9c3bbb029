"""MaxMatch (M2): the scorer (:mod:`.scorer`) and its edit lattice (:mod:`.lattice`, :mod:`.lattice_np`)."""
