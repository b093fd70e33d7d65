"""Benchmarks of function-asya against the SDK's own no-op function, and against go-templating."""
