"""The `function-asya` command line: serve, render offline, and the flavor tools."""
