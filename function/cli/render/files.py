"""Read the YAML files `render` takes, with errors that name the file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from function.cli.render import shapes
from function.cli.render.errors import RenderError
from function.codec import kinds, yaml_text

COMPOSITION_RESOURCE_NAME = "crossplane.io/composition-resource-name"
YAML_SUFFIXES = (".yaml", ".yml")
# What crossplane render accepts as a Composition and as a Function (load.go).
COMPOSITION_API_VERSION = "apiextensions.crossplane.io/v1"
FUNCTION_API_VERSIONS = frozenset({"pkg.crossplane.io/v1", "pkg.crossplane.io/v1beta1"})


def yaml_load(text: str) -> Any:
    """Load one YAML document, keeping timestamps as strings, as Kubernetes objects carry them."""
    return yaml_text.load(text)


@dataclass(frozen=True)
class Document:
    """One Kubernetes object and the file it came from."""

    source: str
    body: dict[str, Any]
    at: str = ""  # where in the file: `document 2`, or `document 1, item 3` of a List

    @property
    def where(self) -> str:
        """The file and where in it, for messages."""
        return self.source + _at(self.at)

    @property
    def api_version(self) -> str:
        """The object's apiVersion."""
        return str(self.body.get("apiVersion", ""))

    @property
    def kind(self) -> str:
        """The object's kind."""
        return str(self.body.get("kind", ""))

    @property
    def metadata(self) -> dict[str, Any]:
        """The object's metadata (empty when absent)."""
        meta = self.body.get("metadata")
        return meta if isinstance(meta, dict) else {}

    @property
    def name(self) -> str:
        """The object's metadata.name."""
        return str(self.metadata.get("name", ""))


def load_text(text: str, source: str, *, allow_empty: bool = True) -> list[Document]:
    """Parse a YAML stream into objects, each of which must have apiVersion and kind.

    A List (`kubectl get … -o yaml`: `List`, `EnvironmentConfigList`, …) gives its
    items. Without `allow_empty`, a stream with no object at all (empty, or only
    comments) is refused: a tool that read nothing must not pass. Render takes one, as
    crossplane render does (an observed file that says nothing is observed yet).
    """
    try:
        bodies = list(yaml_text.load_all(text))
    except yaml.YAMLError as exc:
        raise RenderError(f"cannot parse {source}: {exc}") from None
    if not allow_empty and all(body is None for body in bodies):
        raise RenderError(
            f"cannot load {source}: it holds no object (it is empty, or only comments)"
        )
    documents = []
    for number, body in enumerate(bodies, 1):
        at = f"document {number}" if number > 1 else ""  # the first needs no number
        if body is not None:
            documents += _objects(body, source, at)
    return documents


def _objects(body: Any, source: str, at: str) -> list[Document]:
    """The object, or a List's items (a `kind` ending in List, with `items`)."""
    if isinstance(body, dict) and str(body.get("kind", "")).endswith("List") and "items" in body:
        if not isinstance(items := body["items"], list):
            raise RenderError(
                f"cannot parse {source}{_at(at)}: the {body['kind']}'s items must be a list, "
                f"not {kinds.kind_of(items)}"
            )
        return [
            _document(item, source, f"{at or 'document 1'}, item {i}")
            for i, item in enumerate(items, 1)
        ]
    return [_document(body, source, at)]


def _at(at: str) -> str:
    return f" ({at})" if at else ""


def _document(body: Any, source: str, at: str) -> Document:
    if not isinstance(body, dict) or not body.get("apiVersion") or not body.get("kind"):
        raise RenderError(
            f"cannot parse {source}: {at or 'document 1'} is not a Kubernetes object "
            "(it needs apiVersion and kind)"
        )
    where = f"cannot load {source}{_at(at)}"
    if problem := yaml_text.not_json(body):
        raise RenderError(f"{where}: {problem}")
    settled = shapes.without_null_maps(body)
    shapes.check_object(settled, where)
    return Document(source=source, body=settled, at=at)


def load(path: str, *, allow_empty: bool = True) -> list[Document]:
    """Load every object from a file, or from each YAML/JSON file of a directory (sorted)."""
    location = Path(path)
    if location.is_dir():
        files = sorted(p for p in location.iterdir() if p.suffix in YAML_SUFFIXES and p.is_file())
        if not files:
            raise RenderError(f'no YAML files found in "{path}" (.yaml or .yml)')
        return [doc for file in files for doc in load(str(file), allow_empty=allow_empty)]
    try:
        text = location.read_text(encoding="utf-8")
    except OSError as exc:
        raise RenderError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RenderError(f"cannot read {path}: not UTF-8 text") from None
    return load_text(text, path, allow_empty=allow_empty)


def load_one(path: str, what: str) -> Document:
    """Load the first object of a file, as crossplane render reads an XR or a Composition."""
    documents = load(path)
    if not documents:
        raise RenderError(f"cannot load {what} from {path}: it holds no object")
    return documents[0]


def load_composite(path: str) -> Document:
    """Load a composite resource (an XR), whose spec must be a map."""
    xr = load_one(path, "composite resource")
    shapes.check_composite(xr.body, f"cannot load composite resource from {path}")
    return xr


def load_composition(path: str) -> Document:
    """Load a Composition and check it is a function pipeline."""
    composition = load_one(path, "Composition")
    if (composition.api_version, composition.kind) != (COMPOSITION_API_VERSION, "Composition"):
        raise RenderError(
            f'cannot load Composition from "{path}": not a composition: '
            f"{composition.kind}/{composition.name}"
        )
    shapes.check_composition(composition.body, f"cannot load Composition from {path}")
    spec = composition.body.get("spec") or {}
    if spec.get("mode") != "Pipeline":
        raise RenderError(
            "render only supports Composition Function pipelines: "
            f'Composition "{composition.name}" must use spec.mode: Pipeline'
        )
    if not isinstance(spec.get("pipeline"), list):
        raise RenderError(f"cannot load Composition from {path}: spec.pipeline is not a list")
    return composition


def load_functions(path: str) -> list[Document]:
    """Load the Function packages a pipeline may call."""
    functions = load(path)
    for function in functions:
        if function.kind != "Function" or function.api_version not in FUNCTION_API_VERSIONS:
            raise RenderError(
                f'cannot load functions from "{path}": not a function: '
                f"{function.kind}/{function.name}"
            )
    return functions


def load_observed(path: str) -> list[Document]:
    """Load observed composed resources.

    As crossplane render does, one without the composition-resource-name annotation is
    loaded too, under the empty name.
    """
    return load(path)


def resource_name(resource: Document) -> str:
    """The composition resource name an observed resource carries ('' when it has none)."""
    annotations = resource.metadata.get("annotations") or {}
    return (
        str(annotations.get(COMPOSITION_RESOURCE_NAME, "")) if isinstance(annotations, dict) else ""
    )
