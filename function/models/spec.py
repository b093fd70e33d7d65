"""The AsyncActor spec as the XRD defines it; the resolved spec is validated against it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from function.models import names, pod, timeouts
from function.models.metrics import Metrics
from function.models.pod import PullPolicy
from function.models.resiliency import Resiliency
from function.models.scaling import INT32_MAX, Scaling
from function.models.scheduling import LabelKey, LabelValue, Toleration
from function.models.spec_base import SpecSection

# Fields that say what the actor is or which flavors it uses; flavors cannot set them.
INFRASTRUCTURE_FIELDS = ("actor", "transport", "flavors")
MAX_FLAVORS = 8
# A flavor's name is at least this long: the XRD says so, and so does reading the XR
# (models/xr.py), which refuses each rule of the list before any flavor is looked up.
MIN_FLAVOR_NAME = 3
MAX_STATE_PROXY_NAME = 63 - len(pod.CONNECTOR_PREFIX)


def _held_to(rule: Callable[[str], bool], words: str) -> AfterValidator:
    """A check that a string keeps a naming rule, saying in `words` what it must be."""

    def check(value: str) -> str:
        if not rule(value):
            raise ValueError(f"not {words}")
        return value

    return AfterValidator(check)


class EnvVar(SpecSection):
    """An environment variable of the runtime container."""

    name: str = Field(min_length=1)
    value: str | None = None
    value_from: dict[str, Any] | None = None


# An image as the API server takes it in a pod.
Image = Annotated[str, _held_to(names.is_image, names.IMAGE_WORDS)]


class NameValue(SpecSection):
    """A plain name/value environment variable (sidecar and connector env)."""

    name: str = Field(min_length=1)
    value: str


class SecretKey(SpecSection):
    """One Secret key exposed as an environment variable."""

    key: Annotated[str, _held_to(names.is_config_key, names.CONFIG_KEY_WORDS)]
    env_var: str = Field(min_length=1)


class SecretRef(SpecSection):
    """Keys of one Secret mapped to environment variables."""

    secret_name: Annotated[str, _held_to(names.is_object_name, names.OBJECT_NAME_WORDS)]
    keys: list[SecretKey] = Field(min_length=1)


class SidecarImage(SpecSection):
    """The sidecar image, as repository, tag and pull policy."""

    repository: Annotated[str, _held_to(names.is_repository, names.REPOSITORY_WORDS)] | None = None
    tag: Annotated[str, _held_to(names.is_image_tag, names.IMAGE_TAG_WORDS)] | None = None
    pull_policy: PullPolicy | None = None


class Sidecar(SpecSection):
    """Per-actor overrides of the Asya sidecar."""

    image: SidecarImage | None = None
    env: list[NameValue] = Field(default_factory=list)
    resources: dict[str, Any] | None = None


class Tracing(SpecSection):
    """OpenTelemetry export of the sidecar."""

    endpoint: str | None = None
    protocol: str | None = None


class Mount(SpecSection):
    """Where a state proxy is mounted in the runtime."""

    path: str = Field(pattern=r"^/")


class Connector(SpecSection):
    """The container that backs a state proxy."""

    image: Image
    image_pull_policy: PullPolicy = "IfNotPresent"
    env: list[NameValue] = Field(default_factory=list)
    resources: dict[str, Any] | None = None


class StateProxy(SpecSection):
    """A state mount served by a connector container."""

    # Its connector container is `asya-state-proxy-<name>`, which must fit in 63.
    name: str = Field(min_length=1, max_length=MAX_STATE_PROXY_NAME, pattern=names.DNS_LABEL)
    mount: Mount
    write_mode: Literal["buffered", "passthrough"] = "buffered"
    connector: Connector


class NamedContainer(BaseModel):
    """A user container (sidecar or init container); any Container field is kept."""

    model_config = ConfigDict(extra="allow", frozen=True, strict=True)

    name: str = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _not_reserved(cls, name: str) -> str:
        if name.startswith(pod.RESERVED_CONTAINER_PREFIX):
            raise ValueError(
                f"container names starting with '{pod.RESERVED_CONTAINER_PREFIX}' are reserved "
                "for internal use"
            )
        return name


class PullSecret(SpecSection):
    """An image pull Secret of the actor's namespace, by name (a LocalObjectReference)."""

    name: Annotated[str, _held_to(names.is_object_name, names.OBJECT_NAME_WORDS)]


class Spec(SpecSection):
    """The resolved AsyncActor spec every later stage reads."""

    actor: str = Field(min_length=1, max_length=names.MAX_LABEL, pattern=names.DNS_LABEL)
    flavors: list[str] = Field(default_factory=list, max_length=MAX_FLAVORS)
    image: Image
    image_pull_policy: PullPolicy = "IfNotPresent"
    handler: str = Field(min_length=1)
    python_executable: str = Field("python3", min_length=1)
    replicas: int = Field(1, ge=1, le=INT32_MAX)  # a Deployment's replicas are int32
    env: list[EnvVar] = Field(default_factory=list)
    resources: dict[str, Any] = Field(default_factory=dict)
    tolerations: list[Toleration] = Field(default_factory=list)
    # Label values: strings (a YAML `true` is not "true").
    node_selector: dict[LabelKey, LabelValue] = Field(default_factory=dict)
    volumes: list[dict[str, Any]] = Field(default_factory=list)
    volume_mounts: list[dict[str, Any]] = Field(default_factory=list)
    init_containers: list[NamedContainer] = Field(default_factory=list)
    sidecars: list[NamedContainer] = Field(default_factory=list)
    scaling: Scaling = Field(default_factory=Scaling)
    resiliency: Resiliency | None = None
    sidecar: Sidecar | None = None
    tracing: Tracing | None = None
    state_proxy: list[StateProxy] = Field(default_factory=list)
    secret_refs: list[SecretRef] = Field(default_factory=list)
    # Passed into the pod as they are (held to their Kubernetes types' schemas), with the
    # names Helm charts use: the runtime container's securityContext and envFrom, the pod's.
    security_context: dict[str, Any] | None = None
    env_from: list[dict[str, Any]] = Field(default_factory=list)
    pod_security_context: dict[str, Any] | None = None
    image_pull_secrets: list[PullSecret] = Field(default_factory=list)
    affinity: dict[str, Any] | None = None
    topology_spread_constraints: list[dict[str, Any]] = Field(default_factory=list)
    priority_class_name: (
        Annotated[str, _held_to(names.is_object_name, names.OBJECT_NAME_WORDS)] | None
    ) = None
    metrics: Metrics = Field(default_factory=Metrics)

    @property
    def actor_timeout_seconds(self) -> float:
        """How long a call may take: `resiliency.actorTimeout`, else the sidecar's default."""
        return timeouts.actor_timeout_seconds(
            self.resiliency.actor_timeout if self.resiliency else None
        )


def as_data(model: BaseModel) -> dict[str, Any]:
    """Return a spec section as plain data (camelCase keys), typed as validated.

    Only what a layer set is included: a field left to its default stays absent,
    as it was in the layers, so the renderers and the hand-off read the same values.
    """
    return model.model_dump(by_alias=True, exclude_unset=True)


# The lowest layer: what an actor gets when neither it nor a flavor says otherwise,
# read from the models' own field defaults so the two cannot drift apart.
DEFAULTS: dict[str, Any] = {
    "imagePullPolicy": Spec.model_fields["image_pull_policy"].default,
    "pythonExecutable": Spec.model_fields["python_executable"].default,
    "replicas": Spec.model_fields["replicas"].default,
    "scaling": Scaling().model_dump(
        by_alias=True, exclude={"advanced", "additional_triggers", "pinned_replicas"}
    ),
}
STATE_PROXY_DEFAULTS: dict[str, Any] = {
    "writeMode": StateProxy.model_fields["write_mode"].default,
    "connector": {"imagePullPolicy": Connector.model_fields["image_pull_policy"].default},
}
