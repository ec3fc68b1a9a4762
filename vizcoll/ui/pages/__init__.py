"""The app's pages: one module per page, found by Dash (``use_pages``), each registering its path."""
