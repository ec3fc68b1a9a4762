"""The Dash face of vizcoll: pages, callbacks, figure builders and components."""
