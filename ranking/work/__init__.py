"""The worker path: a worker claims a HIT, reads its screens and submits them, through the pages or the
workers' API (``api``); claims, submits and expiries (``assignments``), leases (``leases``), how a
screen is named (``screen_handles``) and timed (``screen_time``), and the reads and writes every
request of a working crowd makes (``reads``, ``writes``)."""
