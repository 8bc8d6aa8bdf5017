"""The Elm-style core: messages, commands, the model, update, and the sans-IO session."""
