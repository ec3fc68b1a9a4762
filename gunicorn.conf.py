"""gunicorn settings for the hosted demo (used by the Dockerfile and its test)."""

import os

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8050')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
timeout = 120
accesslog = "-"

# responses name no server software or version ("Server: vizcoll", not gunicorn's own)
import gunicorn.http.wsgi  # noqa: E402

gunicorn.http.wsgi.SERVER = "vizcoll"
