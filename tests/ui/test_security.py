"""What every response carries and what no request may exceed (vizcoll.ui.security), via Flask's test client."""

from __future__ import annotations

import pytest

from app import create_app
from vizcoll.ui.security import MAX_REQUEST_BYTES, MAX_UPLOAD_BYTES

HEADERS = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "SAMEORIGIN", "Referrer-Policy": "no-referrer"}


@pytest.fixture(scope="module")
def client():
    return create_app().server.test_client()


@pytest.mark.parametrize(
    "path", ["/", "/trees", "/nowhere", "/_dash-layout", "/_dash-dependencies", "/healthz", "/assets/style.css"]
)
def test_every_response_carries_the_security_headers(client, path):
    response = client.get(path)
    for name, value in HEADERS.items():
        assert response.headers[name] == value, (path, name)
    policy = response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'self'" in policy and "script-src 'self' 'sha256-" in policy
    assert "unsafe-eval" not in policy
    assert "unsafe-inline" not in policy.split("style-src")[0] and "''" not in policy  # no inline scripts but ours
    assert "Werkzeug" not in response.headers.get("Server", "") and "Python" not in response.headers.get("Server", "")


def test_health_says_ok_and_nothing_about_the_process(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}


def test_development_routes_are_closed(client):
    assert client.get("/_reload-hash").status_code == 404


def test_a_body_over_the_limit_is_refused_before_it_is_read(client):
    response = client.post(
        "/_dash-update-component", data=b"x" * (MAX_REQUEST_BYTES + 1), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413 and "limit of 20 MB" in response.get_data(as_text=True)
    assert MAX_UPLOAD_BYTES * 4 // 3 < MAX_REQUEST_BYTES  # a base64 upload at the cap still fits
