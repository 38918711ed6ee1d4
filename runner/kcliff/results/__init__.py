"""The documents a run writes and reads: results, stored baselines, the nightly history."""
