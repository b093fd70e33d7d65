"""The errors `render` reports: a message printed to stderr, exit status 1."""


class RenderError(Exception):
    """Rendering cannot go on; the message says why and names the file or step."""


class PipelineFatalError(RenderError):
    """A step returned a fatal result; each Crossplane release words it its own way."""

    def __init__(self, step: str, message: str) -> None:
        """Keep the step and the function's message apart, for each release's wording."""
        super().__init__(f'pipeline step "{step}" returned a fatal result: {message}')
        self.step = step
        self.message = message
