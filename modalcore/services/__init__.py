"""Engine services behind `Call` commands: each is an async function of keyword arguments
returning plain data. `services.table.default_services` builds the table the runtime runs them
from (kept out of this package's `__init__`, so importing one service imports nothing else)."""
