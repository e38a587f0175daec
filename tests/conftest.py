"""Shared test set-up: tiny workloads and a non-interactive matplotlib."""

import os

os.environ.setdefault("FASTRAIN_MODE", "ci")
os.environ.setdefault("MPLBACKEND", "Agg")
