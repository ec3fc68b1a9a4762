"""A griffe extension (mkdocs.yml: the python handler's ``extensions``): the docstrings' Sphinx roles
(``:func:`x```, ``:class:`~a.B```) become code spans, which is what mkdocstrings renders them as."""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|obj|exc|const|ref|term):`~?([^`]+)`")


class SphinxRoles(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **_) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"`\1`", obj.docstring.value)
