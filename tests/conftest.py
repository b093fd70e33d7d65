"""Test-wide setup: quiet function logs."""

import pytest
from crossplane.function import logging


@pytest.fixture(autouse=True)
def _quiet_logs() -> None:
    logging.configure(level=logging.Level.DISABLED)
