"""Test-wide setup: quiet function logs; with FUNCTION_ASYA_NO_SKIPS set, a skip fails the run."""

import os

import pytest
from crossplane.function import logging


@pytest.fixture(autouse=True)
def _quiet_logs() -> None:
    logging.configure(level=logging.Level.DISABLED)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", help="rewrite golden files from current output"
    )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail a run that skipped anything when FUNCTION_ASYA_NO_SKIPS is set (CI has ../shared)."""
    if not os.environ.get("FUNCTION_ASYA_NO_SKIPS") or exitstatus != 0:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if skipped:
        reporter.write_line(
            f"FUNCTION_ASYA_NO_SKIPS is set and {len(skipped)} tests skipped: failing the run",
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
