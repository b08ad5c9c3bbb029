"""The I-measure: the scorer (:mod:`.scorer`), its 3-way alignment (:mod:`.align`), and the metric
object with its command-line adapter (:mod:`.metric`)."""
