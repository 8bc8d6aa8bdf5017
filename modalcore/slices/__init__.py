"""One module per slice of the model: its state, its messages and their handlers."""
