"""Renderer tests: golden images, hit-testing, highlights, PNG output."""
