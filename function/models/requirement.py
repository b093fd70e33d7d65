"""What the function asks Crossplane to fetch: one kind of object, by name or by labels."""

from __future__ import annotations

from dataclasses import dataclass

# A flavor's EnvironmentConfig: what a requirement asks for unless it says otherwise.
API_VERSION = "apiextensions.crossplane.io/v1beta1"
KIND = "EnvironmentConfig"


@dataclass(frozen=True)
class Requirement:
    """A request for objects: the one named after a flavor, or those bearing some labels."""

    key: str
    flavor: str
    api_version: str = API_VERSION
    kind: str = KIND
    # Set for namespaced objects: never look across namespaces.
    namespace: str = ""
    # Objects selected by these labels, instead of the one named after the flavor.
    match_labels: tuple[tuple[str, str], ...] = ()
    # Asked of Crossplane 1.x too, which looks in every namespace: the answer is filtered.
    anywhere_on_legacy: bool = False

    @property
    def legacy(self) -> bool:
        """Whether Crossplane 1.x may be asked for it too (it ignores a selector's namespace)."""
        return not self.namespace or self.anywhere_on_legacy
