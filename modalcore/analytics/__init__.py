"""Analytics per behaviour.md §7: tracking events from `Track` commands and from what each update
produced (connects, disconnects, modal open and close), sent to a hosted endpoint (`POST /e`)
or kept in the engine's own store with counts per event and per day on an operator page
(`server/analytics_routes.py`; pruning: `ops/analytics.py`)."""
