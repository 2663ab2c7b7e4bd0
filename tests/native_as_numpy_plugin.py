"""pytest plugin: every Core asked for backend "numpy" gets "native" instead.

Used by tests/test_kernels_mgather.py to run the MGATHER spec tests (written against spec
goldens for the NumPy backend) on the native kernels, unchanged: ``python -m pytest -p
native_as_numpy_plugin tests/test_mgather_ub.py``.
"""
from __future__ import annotations


def pytest_configure(config):
    import ptogpu.core as core_mod
    from ptogpu.backend import resolve_backend

    def resolve(name):
        return resolve_backend("native" if name == "numpy" else name)

    core_mod.resolve_backend = resolve
