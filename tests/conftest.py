"""Shared fixtures for the whole suite."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def data_dir() -> Path:
    """The folder of test data copied from ``../shared/data`` (see its README for sources)."""
    return DATA
