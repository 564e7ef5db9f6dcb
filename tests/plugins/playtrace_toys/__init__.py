"""Toy games that plug into PlayTrace through entry points (see ../README.md)."""
