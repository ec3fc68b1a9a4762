"""The app's pages, found by Dash (``use_pages``): a page with a model of its own is one folder (``trees/``:
``page.py`` registers the path, private ``_model.py``, ``_views.py``, ``_figures.py`` beside it); the start page
and the 404 page are one module each."""
