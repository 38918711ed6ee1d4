"""What a scenario is: the measured settings, the suites, the pairwise settings space."""
