"""Validation rules of SPEC §5, each with its exact message."""
