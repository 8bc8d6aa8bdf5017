"""The engine's vocabulary, below every slice: messages (`msg`), commands (`cmds`), `replace`
for frozen state (`evolve`), the slice shape with its table (`shape`) and the service interfaces
(`services`: `Service`, `ServiceContext`, `ServiceRef`). It imports nothing (but type-only names)
else of modalcore (the import contracts in pyproject.toml check it)."""
