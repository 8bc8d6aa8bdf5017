"""The engine's vocabulary, below every slice: messages (`msg`), commands (`cmds`), `replace`
for frozen state (`evolve`) and the slice shape with its table (`shape`). It imports nothing
else of modalcore (the import contracts in pyproject.toml check it)."""
