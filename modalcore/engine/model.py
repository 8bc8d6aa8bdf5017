"""Moved to `modalcore.slices.model` (issue 12, layered imports: views and slices read the model,
so it sits with the slices). This re-export stays only until the branches written against the
old path have merged; the import contract fails on a view or slice importing this."""

from ..slices.model import Model, Step, initial_model, model_from_data, model_to_data

__all__ = ["Model", "Step", "initial_model", "model_from_data", "model_to_data"]
