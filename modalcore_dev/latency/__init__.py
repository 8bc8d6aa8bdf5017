"""Latency tooling: a loopback delay proxy for end-to-end tests and benchmarks."""

from modalcore_dev.latency.proxy import DelayProxy, ThreadedProxy, running_proxy

__all__ = ["DelayProxy", "ThreadedProxy", "running_proxy"]
