"""Tools for platform teams, built on the function's own parsing, merge and validation."""
