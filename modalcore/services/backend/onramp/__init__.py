"""Buying crypto with fiat (behaviour.md §1 onramp, §3 onramp entities, §7 onramp calls, §8 fallbacks,
§9 default limits): the hosted API client, the built-in defaults, and a local provider for the
dev chains (demo mode)."""
