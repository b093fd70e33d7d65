"""Which `crossplane render` to follow: `--crossplane-version` names the release."""

from __future__ import annotations

import re
from dataclasses import dataclass

from function.cli.render.errors import RenderError
from function.cli.render.pipeline import RequestMeta

_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?")
# The tags an image reference may carry for the current release.
_CURRENT_TAGS = frozenset({"stable", "latest", "master", "main"})


@dataclass(frozen=True)
class Release:
    """What a release's render does: run the real reconciler (v2.3+), and what meta it sends."""

    engine: bool
    meta: RequestMeta


CURRENT = Release(engine=True, meta="tagged")
V2_2 = Release(engine=False, meta="capabilities")
V2_0 = Release(engine=False, meta="none")


def parse(version: str | None) -> Release:
    """The release `--crossplane-version` names; the current one when it names none.

    Raises:
        RenderError: for a version that is not a release, or one before v2.0.
    """
    if version is None or version in _CURRENT_TAGS:
        return CURRENT
    match = _VERSION.fullmatch(version)
    if match is None:
        raise RenderError(
            f'--crossplane-version "{version}": want a Crossplane release such as v2.2 or v2.3.0'
        )
    major, minor = int(match.group(1)), int(match.group(2))
    if major < 2:
        raise RenderError(
            f'--crossplane-version "{version}": render follows Crossplane v2.0 and later'
        )
    if (major, minor) < (2, 2):
        return V2_0
    if (major, minor) == (2, 2):
        return V2_2
    return CURRENT
