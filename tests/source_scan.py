"""Reading the project's own source in tests: the string constants a module spells, its docstrings aside."""

from __future__ import annotations

import ast


def docstring_ids(tree: ast.Module) -> set[int]:
    """The ids of the docstrings' nodes of ``tree`` (they explain, doctests and usage lines included, and choose
    nothing)."""
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
