"""The version of sanpath (read by setup.cfg, the CLI and the sweep cache key)."""

__version__ = "0.1.0"
