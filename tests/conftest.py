"""Test-wide setup: quiet function logs."""

import pytest
from crossplane.function import logging


@pytest.fixture(autouse=True)
def _quiet_logs() -> None:
    logging.configure(level=logging.Level.DISABLED)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", help="rewrite golden files from current output"
    )
