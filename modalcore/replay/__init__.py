"""Replay for testers: divergences in words, folders, `--update`, transcripts, trees, and
hand-written sequences (`python -m modalcore replay --help`, docs/testers/)."""
