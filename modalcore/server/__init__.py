"""The engine's HTTP and websocket face: Starlette app, config, origins, resume tokens, hub."""
