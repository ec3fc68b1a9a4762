"""The /help page: what each page shows, the paper it reproduces, how to use it, and links to the shipped examples.

One folder: ``page`` (the Dash page), ``_model`` (the guide's texts and links, built from the pages' own presets,
the shipped lessons, the file formats' registry and the player's keys; without Dash)."""

ORDER = 9
"""Its place in the navbar (``register_page``'s ``order``): last, after Lessons."""
