"""Measured data the package ships (read with importlib.resources)."""
