# Hosted demo of vizcoll: `vizcoll serve` (gunicorn, WEB_CONCURRENCY workers), a health check, no debug mode.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 HOST=0.0.0.0 PORT=8050 VIZCOLL_CACHE_DIR=/tmp/vizcoll-cache \
    VIZCOLL_VENDOR_DIR=/app/vendor BROWSER_PATH=/usr/bin/chromium
# chromium: kaleido renders the exports (animations, figure packs) with it; fonts-liberation: the paper theme's font
RUN apt-get update && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# the pinned versions first (a layer that changes only with them), then the package itself, its assets and lessons
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
COPY pyproject.toml README.md LICENSE ./
COPY vizcoll ./vizcoll
RUN pip install --no-cache-dir --no-deps . && rm -rf build
# plotly.js's partial bundle "cartesian", regenerator-runtime and cytoscape-svg for the browsers
# (vizcoll/ui/vendor.py); without them, the full plotly.js, Dash's babel polyfill and cytoscape's extra bundle
RUN python -c "from vizcoll.ui import vendor; print(vendor.ensure(timeout=120))"
RUN useradd --create-home --uid 10001 vizcoll && mkdir -p /tmp/vizcoll-cache && chown vizcoll /tmp/vizcoll-cache
USER vizcoll
WORKDIR /home/vizcoll
EXPOSE 8050
HEALTHCHECK --interval=30s --timeout=5s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ['PORT'] + '/healthz', timeout=4)"
CMD ["vizcoll", "serve"]
