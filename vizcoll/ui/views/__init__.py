"""Pure view helpers of the pages: tables and sentences built from plain results (Dash components without ids
or callbacks; figures are in :mod:`vizcoll.ui.figures`)."""
