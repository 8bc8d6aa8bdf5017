"""The local Farcaster auth relay and the demo Farcaster client (`python -m modalcore_dev.farcaster`)."""
