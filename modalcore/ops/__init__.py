"""The operators' commands over the engine's store (`python -m modalcore analytics ...`, `audit ...`):
tools, above the server (the import contract's tools layer)."""
