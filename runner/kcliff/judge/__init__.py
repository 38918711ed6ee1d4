"""Judging measurements: statistics, verdicts, the sequential stop, change points, tiers."""
