"""Quality control of the crowd: hidden traps and repeats, each worker's record and evidence, and exclusion."""
