"""The lessons: ``/lessons`` (the shipped lessons and your own), ``/lessons/present`` (the presenter) and
``/lessons/notes`` (its speaker notes, in a second window).

One folder: ``page``, ``present`` and ``notes`` (the Dash pages), ``_model`` (which lesson a request means, the
links of its steps, your own lessons' store; without Dash). The format is :mod:`vizcoll.lessons`."""

ORDER = 8
"""Its place in the navbar (``register_page``'s ``order``)."""
