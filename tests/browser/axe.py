"""axe-core in the test browser: the WCAG 2.1 A and AA rules run on the page as it stands (issue 46).

axe-core's pinned version (:data:`AXE`) is downloaded from the npm registry once, checked against the registry's
SHA-512 like the app's own scripts (:func:`vizcoll.ui.vendor.fetch`), and kept beside them; a test that cannot get
it fails (it never skips). The rules of :data:`TAGS` run on the top document and on each same-origin frame (the
lesson presenter shows the live page in one).
"""

from __future__ import annotations

from functools import cache

from vizcoll.ui import vendor

__all__ = ["AXE", "TAGS", "violations"]

AXE = vendor.NpmFile(
    "axe-core", "4.14.1", "package/axe.min.js", b"axe v4.14.1", "axe-core-4.14.1.min.js", "no accessibility check"
)
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
RUN = """const done = arguments[arguments.length - 1];
axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, iframes: false})
  .then(r => done(r.violations.flatMap(v => v.nodes.map(n =>
      `${v.id} (${v.impact}): ${n.target.join(' ')} :: ${n.html.slice(0, 160)}`))))
  .catch(e => done(['axe failed: ' + e]));"""


@cache
def source() -> str:
    """axe.min.js of :data:`AXE` (downloaded once)."""
    path = AXE.path if AXE.path.is_file() else vendor.fetch(AXE)
    return path.read_text(encoding="utf-8")


def _here(driver) -> list[str]:
    if not driver.execute_script("return !!window.axe;"):
        driver.execute_script(source())
    return driver.execute_async_script(RUN, TAGS)


def violations(driver) -> list[str]:
    """One line per element that fails a rule of :data:`TAGS`, on the page and in its frames ("rule (impact):
    element :: its HTML"); empty when axe-core finds nothing."""
    driver.set_script_timeout(60)
    found = _here(driver)
    # the frames read by a script: find_elements waits dash_duo's implicit 2 s when a page has none
    for k, frame in enumerate(driver.execute_script("return [...document.querySelectorAll('iframe')];")):
        driver.switch_to.frame(frame)
        try:
            found += [f"frame {k}: {line}" for line in _here(driver)]
        finally:
            driver.switch_to.default_content()
    return found
