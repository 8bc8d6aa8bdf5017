"""What an approval will do, before the visitor approves it (issue 43): pure decoding of a simulation or of the call data."""
