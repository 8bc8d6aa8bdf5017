"""Engine services behind `Call` commands: each is an async function of keyword arguments
returning plain data. Two halves, one per layer of the import contract: `domain/` (the typed
handles and shapes a slice's call names, pure) and `backend/` (the implementations, I/O).
`services.backend.table.default_services` builds the table the runtime runs them
from (kept out of this package's `__init__`, so importing one service imports nothing else)."""
