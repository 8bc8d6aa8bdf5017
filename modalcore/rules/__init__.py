"""Validation rules of behaviour.md §5, each with its exact message."""
