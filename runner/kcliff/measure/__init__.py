"""Measuring a suite on a running cluster: the tools, their parsers, faults, progress."""
