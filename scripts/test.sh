#!/usr/bin/env bash
# Install everything the tests need (Python packages, Debian's chromium + chromium-driver) and run them all.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
# chromium + chromium-driver for the browser tests; ibsim-utils, opensm and infiniband-diags (ibnetdiscover,
# iblinkinfo) to check our ibsim export with the real ibsim and read back what the real tools print on a fabric
# that OpenSM gave LIDs; redis-server for the background jobs on Celery + Redis (the test starts its own server);
# fonts-liberation (Arial's widths, which vizcoll/ui/figures/margins.py sizes the figures' margins for)
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! command -v ibsim >/dev/null \
    || ! { command -v ibnetdiscover >/dev/null || [ -x /usr/sbin/ibnetdiscover ]; } \
    || ! { command -v opensm >/dev/null || [ -x /usr/sbin/opensm ]; } \
    || ! command -v redis-server >/dev/null; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver fonts-liberation ibsim-utils \
    infiniband-diags opensm redis-server >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check -r requirements-dev.txt
python3 -m ruff check .
python3 -m ruff format --check .
# the docs site (mkdocs.yml): strict, so that a broken link, a missing page or a docstring griffe cannot read fails
NO_MKDOCS_2_WARNING=1 python3 -m mkdocs build --strict --quiet --site-dir "$(mktemp -d)"
# plotly.js's partial bundle and regenerator-runtime, which the app serves to browsers when it has them
# (vizcoll/ui/vendor.py)
python3 -c "from vizcoll.ui import vendor; print(vendor.ensure())"
# the tests without a browser in parallel (pytest-xdist, one process per core), the installed app's, then the
# browser tests in three processes (each with one Chromium and one app server for its tests, tests/browser/conftest.py;
# a browser test mostly waits for its page, so three share two cores: 7 min 36 s here on 2026-12-07, where two took
# 10 min and four 8 min 52 s; a process that is free takes tests from a busy one, --dist worksteal),
# then the heavy ones (paper-scale fabrics, tests/conftest.py: HEAVY) alone: one process took 22 min here on 2026-12-06, two 13, but two
# heavy tests then missed their waits; exit status 5 is "no test selected" (arguments that pick some tests only)
status=0
python3 -m pytest -p no:cacheprovider -m "not browser and not install" -n auto "$@" || status=$?
[ "$status" -eq 5 ] && status=0
# `pip install ".[web]"` in a fresh venv, then `vizcoll serve` from another folder (tests/test_installed_app.py)
python3 -m pytest -p no:cacheprovider -m install "$@" || { rc=$?; [ "$rc" -ne 5 ] && status=$rc; }
python3 -m pytest --headless -p no:cacheprovider -m "browser and not heavy" -n 3 --dist worksteal "$@" || {
  rc=$?; [ "$rc" -ne 5 ] && status=$rc; }
python3 -m pytest --headless -p no:cacheprovider -m "browser and heavy" "$@" || { rc=$?; [ "$rc" -ne 5 ] && status=$rc; }
# the speed guard (benchmarks/guard.py): the key cases timed on the commit in benchmarks/BASE and on this tree, side
# by side, each in a fresh process; it fails when one got slower than the base by more than a quarter (about 2 min
# of CPU, 3-4.6 min on a busy 2-core machine). After the tests, so that a slower case still lets every test report;
# not when arguments pick some tests
if [ "$#" -eq 0 ]; then
  python3 benchmarks/guard.py --base "$(cat benchmarks/BASE)" --quick --repeat 2 --markdown || status=1
fi
exit "$status"
