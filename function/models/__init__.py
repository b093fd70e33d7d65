"""Typed models the stages pass between them."""
