"""Sweeps: a grid of games, players, harness settings and seeds, run as one resumable thing."""
