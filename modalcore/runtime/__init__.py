"""The async runtime around the sans-IO session: clocks, timers, service calls, tracking."""
