"""Runnable demonstrations (`ptogpu demo NAME`)."""
