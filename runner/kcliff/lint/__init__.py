"""The cliff rules and what they say about a config repo, rendered for people, GitHub, SARIF and JSON."""
