"""The ``page`` fixture: a fresh vizcoll app served by dash_duo, with the helpers of browser_helpers."""

from __future__ import annotations

import pytest

from app import create_app

from .browser_helpers import TopologyPage


@pytest.fixture
def page(dash_duo):
    """The app served by dash_duo (a fresh app per test), not yet navigated anywhere."""
    dash_duo.start_server(create_app(), navigate=False)
    return TopologyPage(dash_duo)
