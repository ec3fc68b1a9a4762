# Hosted demo of vizcoll: gunicorn with several workers, a health check, no debug mode.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PORT=8050 VIZCOLL_CACHE_DIR=/tmp/vizcoll-cache \
    VIZCOLL_VENDOR_DIR=/app/vendor BROWSER_PATH=/usr/bin/chromium
# chromium: kaleido renders the exports (animations, figure packs) with it; fonts-liberation: the paper theme's font
RUN apt-get update && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
COPY app.py gunicorn.conf.py ./
COPY vizcoll ./vizcoll
# plotly.js's partial bundle "cartesian" and regenerator-runtime for the browsers (vizcoll/ui/vendor.py); without
# them, the full plotly.js and Dash's babel polyfill
RUN python -c "from vizcoll.ui import vendor; print(vendor.ensure(timeout=120))"
COPY assets ./assets
RUN useradd --create-home --uid 10001 vizcoll && mkdir -p /tmp/vizcoll-cache && chown vizcoll /tmp/vizcoll-cache
USER vizcoll
EXPOSE 8050
HEALTHCHECK --interval=30s --timeout=5s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ['PORT'] + '/healthz', timeout=4)"
CMD ["gunicorn", "--config", "gunicorn.conf.py", "app:server"]
