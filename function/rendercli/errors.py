"""The one error `render` reports: a message printed to stderr, exit status 1."""


class RenderError(Exception):
    """Rendering cannot go on; the message says why and names the file or step."""
