"""Typed errors raised by the stages; the runner (function/runner.py) turns them into results once."""


class FunctionError(Exception):
    """An expected failure: the composition cannot proceed with this input.

    Attributes:
        reason: a CamelCase reason for the condition this failure reports.
    """

    reason = "ComposeFailed"

    def __init__(self, message: str, *, path: str = "") -> None:
        """Create an error whose message is shown to the user as is.

        Args:
            message: the whole message, path and source included.
            path: the dotted spec path it is about, when there is one (for tools).
        """
        super().__init__(message)
        self.message = message
        self.path = path

    def __str__(self) -> str:
        """Return the user-facing message."""
        return self.message


class InputError(FunctionError):
    """The step's Input, the observed XR or an observed resource is malformed."""

    reason = "InvalidInput"


class FlavorError(FunctionError):
    """A flavor is missing, malformed, or cannot be applied."""

    reason = "InvalidFlavor"


class SpecError(FlavorError):
    """The actor's own spec, as resolved, holds a value that cannot be rendered or applied.

    Shaped like a flavor's error (path and source named, `FlavorsResolved=False`),
    with its own reason.
    """

    reason = "InvalidSpec"


class ActorTakenError(SpecError):
    """Another XR's actor already has this actor's name in its namespace."""

    reason = "ActorNameTaken"


class WaitingForFlavorsError(FlavorError):
    """Some requested flavors do not exist; fail closed until they do."""

    reason = "WaitingForFlavors"


class MergeConflictError(FlavorError):
    """Two flavors set the same leaf, or disagree about a value's type."""

    reason = "MergeConflict"
