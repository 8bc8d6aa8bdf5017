"""Chain metadata the engine knows (behaviour.md §3 Network)."""
