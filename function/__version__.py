"""The version of function-asya."""

__version__ = "0.1.0"
