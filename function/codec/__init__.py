"""Protobuf at the edge: Structs read and written, and a response's desired state as bytes."""
