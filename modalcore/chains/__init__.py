"""Chain metadata the engine knows (SPEC §3 Network)."""
