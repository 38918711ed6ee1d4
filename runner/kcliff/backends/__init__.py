"""Backends: where the cluster runs (local JVMs, docker compose, or an existing external cluster)."""
