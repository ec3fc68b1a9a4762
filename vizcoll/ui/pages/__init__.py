"""The pages of the app: one module per feature, listed in navigation order."""
