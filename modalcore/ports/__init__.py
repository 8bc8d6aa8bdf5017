"""The interfaces the I/O packages and the runtime share, below the slices: the clock
(`clock`), where analytics events go (`analytics`) and what a session observer sees (`observe`).
Implementations live above: `runtime.clock`, `runtime.analytics`, `analytics/`, `audit/`."""
