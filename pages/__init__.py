"""Streamlit pages of dpmean lab (one thin file per page; shared widgets in ``_ui``)."""
