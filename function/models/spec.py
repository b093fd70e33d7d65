"""The AsyncActor spec as the XRD defines it; the resolved spec is validated against it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from function.models import crd_schema, names, pod, timeouts
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


# The XRD says these are not empty; the rest of their rule (`_held_to`) is the model's.
# Not input_base's types of the same names, whose whole rule goes into the Input's CRD.
_NOT_EMPTY = Field(json_schema_extra={"minLength": 1})
# An image as the API server takes it in a pod.
Image = Annotated[str, _NOT_EMPTY, _held_to(names.is_image, names.IMAGE_WORDS)]
# A Secret's name, a PriorityClass's: an object name.
ObjectName = Annotated[str, _NOT_EMPTY, _held_to(names.is_object_name, names.OBJECT_NAME_WORDS)]


class NameValue(SpecSection):
    """A plain name/value environment variable (sidecar and connector env)."""

    name: str = Field(min_length=1)
    value: str


class SecretKey(SpecSection):
    """One Secret key exposed as an environment variable."""

    key: Annotated[str, _NOT_EMPTY, _held_to(names.is_config_key, names.CONFIG_KEY_WORDS)]
    env_var: str = Field(min_length=1)


class SecretRef(SpecSection):
    """Keys of one Secret mapped to environment variables."""

    secret_name: ObjectName
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
    protocol: str | None = Field(None, description="http for HTTP/protobuf; empty for gRPC.")


class Mount(SpecSection):
    """Where a state proxy is mounted in the runtime."""

    path: str = Field(pattern=r"^/")


class Connector(SpecSection):
    """The container that backs a state proxy."""

    image: Image
    image_pull_policy: PullPolicy = Field("IfNotPresent", description="Default: IfNotPresent.")
    env: list[NameValue] = Field(default_factory=list)
    resources: dict[str, Any] | None = None


class StateProxy(SpecSection):
    """A state mount served by a connector container."""

    # Its connector container is `asya-state-proxy-<name>`, which must fit in 63.
    name: str = Field(min_length=1, max_length=MAX_STATE_PROXY_NAME, pattern=names.DNS_LABEL)
    mount: Mount
    write_mode: Literal["buffered", "passthrough"] = Field(
        "buffered", description="Default: buffered."
    )
    connector: Connector


_RESERVED = pod.RESERVED_CONTAINER_PREFIX
_RESERVED_WORDS = f"container names starting with '{_RESERVED}' are reserved for internal use"


class NamedContainer(BaseModel):
    """A user container (sidecar or init container); any Container field is kept."""

    model_config = ConfigDict(extra="allow", frozen=True, strict=True)

    # The API server refuses a reserved name when the actor is applied; the function a
    # flavor's, which no API server sees.
    name: str = Field(
        min_length=1,
        json_schema_extra=crd_schema.cel(f"!self.startsWith('{_RESERVED}')", _RESERVED_WORDS),
    )

    @field_validator("name")
    @classmethod
    def _not_reserved(cls, name: str) -> str:
        if name.startswith(_RESERVED):
            raise ValueError(_RESERVED_WORDS)
        return name


class PullSecret(SpecSection):
    """An image pull Secret of the actor's namespace, by name (a LocalObjectReference)."""

    name: ObjectName


# The resolved spec every later stage reads; its docstring and field descriptions are
# the XRD's (what `kubectl explain` shows).
class Spec(SpecSection):
    """An Asya actor, its image and handler, and the flavors it builds on."""

    actor: str = Field(
        min_length=1,
        max_length=names.MAX_LABEL,
        pattern=names.DNS_LABEL,
        description="The actor's name; names its queue and every object. A DNS label.",
    )
    # Read (and refused) with the XR (models/xr.py): the XRD says the same.
    flavors: list[Annotated[str, Field(json_schema_extra={"minLength": MIN_FLAVOR_NAME})]] = Field(
        default_factory=list,
        max_length=MAX_FLAVORS,
        json_schema_extra={"x-kubernetes-list-type": "set"},
        description="Flavors (EnvironmentConfigs published by the platform team) merged under "
        f"the actor's own settings, in this order. At most {MAX_FLAVORS}.",
    )
    image: Image = Field(description="The image with the handler code.")
    image_pull_policy: PullPolicy = Field(
        "IfNotPresent", description="Pull policy of the runtime container. Default: IfNotPresent."
    )
    handler: str = Field(
        min_length=1,
        description="The handler, as module.function or module.Class.method (ASYA_HANDLER).",
    )
    python_executable: str = Field(
        "python3",
        min_length=1,
        description="Python binary that starts the runtime. Default: python3.",
    )
    replicas: int = Field(
        1,
        ge=1,
        le=INT32_MAX,  # a Deployment's replicas are int32
        description="Fixed replica count when scaling is disabled. Default: 1.",
    )
    env: list[EnvVar] = Field(
        default_factory=list, description="Environment variables of the runtime container."
    )
    resources: dict[str, Any] = Field(
        default_factory=dict, description="Resource requests and limits of the runtime container."
    )
    tolerations: list[Toleration] = Field(default_factory=list)
    # Label values: strings (a YAML `true` is not "true").
    node_selector: dict[LabelKey, LabelValue] = Field(default_factory=dict)
    volumes: list[dict[str, Any]] = Field(default_factory=list)
    volume_mounts: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Mounts of the runtime container (name, mountPath, subPath, readOnly).",
    )
    init_containers: list[NamedContainer] = Field(default_factory=list)
    sidecars: list[NamedContainer] = Field(default_factory=list)
    scaling: Scaling = Field(
        default_factory=Scaling, description="KEDA autoscaling on the queue's length."
    )
    resiliency: Resiliency | None = None
    sidecar: Sidecar | None = Field(
        None, description="Overrides of the Asya sidecar for this actor."
    )
    tracing: Tracing | None = None
    state_proxy: list[StateProxy] = Field(default_factory=list)
    secret_refs: list[SecretRef] = Field(default_factory=list)
    # Passed into the pod as they are (held to their Kubernetes types' schemas), with the
    # names Helm charts use: the runtime container's securityContext and envFrom, the pod's.
    security_context: dict[str, Any] | None = Field(
        None, description="The runtime container's securityContext (a Kubernetes SecurityContext)."
    )
    env_from: list[dict[str, Any]] = Field(
        default_factory=list,
        description="The runtime container's envFrom (Kubernetes EnvFromSources).",
    )
    pod_security_context: dict[str, Any] | None = Field(
        None, description="The pod's securityContext (a Kubernetes PodSecurityContext)."
    )
    image_pull_secrets: list[PullSecret] = Field(
        default_factory=list, description="The pod's image pull Secrets, by name."
    )
    affinity: dict[str, Any] | None = Field(
        None, description="The pod's affinity (a Kubernetes Affinity)."
    )
    topology_spread_constraints: list[dict[str, Any]] = Field(
        default_factory=list, description="The pod's topology spread constraints."
    )
    priority_class_name: ObjectName | None = Field(None, description="The pod's PriorityClass.")
    metrics: Metrics = Field(
        default_factory=Metrics,
        description="The sidecar's Prometheus metrics (on by default, port metrics) and the "
        "handler's custom ones.",
    )

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
