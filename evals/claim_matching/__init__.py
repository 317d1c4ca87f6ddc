"""Labelled claim pairs (same, opposite, related) for matching a new claim to earlier kept checks."""
