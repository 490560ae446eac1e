"""Performance scripts: each prints its figures (tests never assert timings)."""
