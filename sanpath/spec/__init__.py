"""Scenario files in, frozen specs out: what a user writes, validated once.

Sizes, rates and times are parsed from unit strings into bytes, bytes per second and
seconds; every error names its file, line, column and field. Nothing downstream checks a
spec again.
"""

from sanpath.spec.scenario import (
    Problem,
    Scenario,
    ScenarioError,
    json_schema,
    load_scenario,
    validate_scenario,
)

__all__ = [
    "Problem",
    "Scenario",
    "ScenarioError",
    "json_schema",
    "load_scenario",
    "validate_scenario",
]
