"""Fixtures the unit tests share."""

import pytest

from function.codec import structs

NOT_BUILT = "the C encoder was not built (no C compiler when the project was installed)"


@pytest.fixture(params=["c", "protobuf"])
def codec(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test with the C encoder, then with protobuf's API in its place."""
    if request.param == "c" and not structs.accelerated():
        pytest.skip(NOT_BUILT)
    if request.param == "protobuf":
        monkeypatch.setattr(structs, "_encoder", None)
    return str(request.param)
