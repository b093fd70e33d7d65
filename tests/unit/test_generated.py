"""The XRDs and the Input's CRD are generated from the models: the committed files are the output."""

from __future__ import annotations

from typing import Any

import pytest

from function.generate import crds as generate
from tests.support import ROOT


@pytest.mark.parametrize("path", sorted(generate.FILES))
def test_the_committed_file_is_what_make_generate_writes(path: str) -> None:
    committed = (ROOT / path).read_text()
    assert committed == generate.text(path), f"{path} differs from the models: run make generate"


def test_generate_writes_only_what_differs(tmp_path: Any) -> None:
    assert sorted(generate.main(tmp_path)) == sorted(generate.FILES)
    assert generate.main(tmp_path) == []
