"""`make bench`: the figures the issues ask for (latency p50/p99, bytes, memory, bundle size)."""
