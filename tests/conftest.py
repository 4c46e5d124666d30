"""Shared test settings: hypothesis profiles and paths."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"

settings.register_profile(
    "ci",
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", max_examples=15, deadline=None)
settings.load_profile(os.getenv("HYPOTHESIS_PROFILE", "dev"))
