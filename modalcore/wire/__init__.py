"""The wire contract of protocol/PROTOCOL.md: nodes, patches, frames, msgpack codec."""
