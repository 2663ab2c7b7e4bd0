"""Target rules written once, as array code, over the core's arenas."""
