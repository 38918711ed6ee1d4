"""The pairwise study: covering arrays, the design rows, the factor analysis, confirmation."""
