"""What spans slices (behaviour.md "Layers"): each flow composes slice functions in one place,
above the slices, so no slice hooks itself into another."""
