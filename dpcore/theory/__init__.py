"""Closed forms: error bounds and exact variances (no simulation)."""
