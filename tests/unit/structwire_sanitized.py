"""A pytest plugin: the C codec under test is the sanitized build `make test-sanitize` made.

`pytest -p tests.unit.structwire_sanitized` loads this before any test module imports
`function.codec.structs`; it loads the extension STRUCTWIRE_SANITIZED names (built
apart, leaving the in-place one alone) as `function.codec._structwire`, so that
`structs` imports it, and refuses to run when that file was not built with the
sanitizers or when any other build is the one in use.
"""

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

import function.codec

NAME = "function.codec._structwire"


def _load(path: Path) -> ModuleType:
    built = path.read_bytes()
    if b"__asan_init" not in built or b"__ubsan_handle" not in built:
        raise pytest.UsageError(f"{path} was not built with -fsanitize=address,undefined")
    if NAME in sys.modules or "function.codec.structs" in sys.modules:
        raise pytest.UsageError("the C codec was imported before the sanitized build was loaded")
    spec = importlib.util.spec_from_file_location(NAME, path)
    if spec is None or spec.loader is None:
        raise pytest.UsageError(f"{path} is no extension module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[NAME] = module
    function.codec._structwire = module  # type: ignore[attr-defined]
    return module


SANITIZED = _load(Path(os.environ["STRUCTWIRE_SANITIZED"]).resolve())


def pytest_report_header() -> str:
    """Say which build runs, once it is certain to be the sanitized one."""
    from function.codec import structs

    codec = structs.codec()
    if codec is not SANITIZED or codec.__file__ is None:
        raise pytest.UsageError(f"function.codec.structs uses {codec}, not the sanitized build")
    return f"C codec under test: {Path(codec.__file__)} (AddressSanitizer, UBSan)"
