"""The arena's protocol, by version."""
