"""LVLM-Playground task sets (being written)."""
