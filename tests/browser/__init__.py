"""Browser tests (dash[testing] + headless Chromium); a package so that its conftest and modules get unique names."""
