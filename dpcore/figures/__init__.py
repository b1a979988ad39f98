"""Plotly figure builders; they draw and do not simulate."""
