"""The instruction API: checks per target, then the semantics layer does the work."""
