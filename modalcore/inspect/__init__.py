"""The session inspector (`python -m modalcore inspect DIR`): recordings on a loopback page, a
timeline per recording, the modal drawn by the real renderer at any step, model diffs, frame
bytes, the first divergence of a replay side by side, and "Export as test"."""
