"""Benchmarks of function-asya against a no-op function on the same SDK."""
