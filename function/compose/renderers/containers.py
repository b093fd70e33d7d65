"""The Deployment's containers: the runtime, the Asya sidecar and the state-proxy connectors."""

from __future__ import annotations

import json
from typing import Any

from function.compose.renderers import meta, transports
from function.models import pod, security
from function.models.plan import Plan
from function.models.spec import as_data


def go_json(value: Any) -> str:
    """Encode like Go's json.Marshal: compact, sorted keys, HTML characters escaped."""
    text = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    for char, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escaped)
    return text


def _probe(plan: Plan, **timing: int) -> dict[str, Any]:
    socket_dir = plan.settings.sidecar.socket_dir
    check = f"test -S {socket_dir}/asya-runtime.sock && test -f {socket_dir}/runtime-ready"
    return {"exec": {"command": ["sh", "-c", check]}, **timing}


def _hardened(
    plan: Plan, container: dict[str, Any], own: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A platform container with its securityContext (the runtime's: the actor's).

    Under Pod Security restricted, the actor's is laid over what the level requires.
    """
    if context := security.container_context(plan.settings.pod_security, own):
        container["securityContext"] = context
    return container


def _runtime_mounts(plan: Plan) -> list[dict[str, Any]]:
    """The platform's mounts of the runtime container, then the actor's."""
    spec, sidecar = plan.spec, plan.settings.sidecar
    mounts: list[dict[str, Any]] = [
        {"name": pod.SOCKET_VOLUME, "mountPath": sidecar.socket_dir},
        {"name": pod.TMP_VOLUME, "mountPath": pod.TMP_PATH},
        {
            "name": pod.RUNTIME_VOLUME,
            "mountPath": sidecar.runtime_mount_path,
            "subPath": "asya_runtime.py",
            "readOnly": True,
        },
    ]
    if spec.state_proxy:
        mounts.append({"name": pod.STATE_VOLUME, "mountPath": pod.STATE_SOCKETS})
    for mount in spec.volume_mounts:
        # Every field the actor set (the schema checked them all), name and path first.
        kept = {"name": mount.get("name"), "mountPath": mount.get("mountPath")}
        kept |= {key: value for key, value in mount.items() if key not in kept and value}
        mounts.append(kept)
    return mounts


def runtime(plan: Plan) -> dict[str, Any]:
    """The container that runs the user's handler."""
    spec, sidecar = plan.spec, plan.settings.sidecar
    env: list[dict[str, Any]] = [
        {"name": "ASYA_SOCKET_DIR", "value": sidecar.socket_dir},
        {"name": "ASYA_HANDLER", "value": spec.handler},
    ]
    if plan.actor in meta.SYSTEM_ACTORS:
        env.append({"name": "ASYA_ENABLE_VALIDATION", "value": "false"})
    for item in spec.env:
        var: dict[str, Any] = {"name": item.name}
        if item.value:
            var["value"] = item.value
        elif item.value_from is not None:
            var["valueFrom"] = item.value_from
        env.append(var)
    for ref in spec.secret_refs:
        for key in ref.keys:
            env.append(
                {
                    "name": key.env_var,
                    "valueFrom": {"secretKeyRef": {"name": ref.secret_name, "key": key.key}},
                }
            )
    if spec.state_proxy:
        mounts = ";".join(f"{p.name}:{p.mount.path}:write={p.write_mode}" for p in spec.state_proxy)
        env.append({"name": "ASYA_STATE_PROXY_MOUNTS", "value": mounts})
    container: dict[str, Any] = {
        "name": pod.RUNTIME,
        "image": spec.image,
        "imagePullPolicy": spec.image_pull_policy,
        "command": [spec.python_executable, sidecar.runtime_mount_path],
        "env": env,
        "volumeMounts": _runtime_mounts(plan),
        "startupProbe": _probe(
            plan, initialDelaySeconds=3, periodSeconds=2, timeoutSeconds=3, failureThreshold=150
        ),
        "livenessProbe": _probe(plan, periodSeconds=30, timeoutSeconds=5, failureThreshold=3),
        "readinessProbe": _probe(plan, periodSeconds=10, timeoutSeconds=3, failureThreshold=3),
    }
    if spec.env_from:
        container["envFrom"] = [dict(source) for source in spec.env_from]
    if spec.resources:
        container["resources"] = spec.resources
    return _hardened(plan, container, spec.security_context)


def sidecar_image(plan: Plan) -> tuple[str, str]:
    """The sidecar image and pull policy: the actor's `sidecar.image` over the Input's."""
    default = plan.settings.sidecar
    image = default.image
    policy: str = default.image_pull_policy
    override = plan.spec.sidecar.image if plan.spec.sidecar else None
    if override is not None:
        if override.repository or override.tag:
            # The Input's digest pins the Input's image: another repository or tag drops it.
            named = image.split("@", 1)[0]
            repository, tag = named, "latest"
            if ":" in named.rsplit("/", 1)[-1]:
                repository, tag = named.rsplit(":", 1)
            image = f"{override.repository or repository}:{override.tag or tag}"
        policy = override.pull_policy or policy
    return image, policy


def _tracing_env(plan: Plan) -> list[dict[str, str]]:
    """OpenTelemetry's endpoint and protocol: the actor's `tracing`, else the Input's."""
    tracing, settings = plan.spec.tracing, plan.settings.sidecar.tracing
    endpoint = (tracing.endpoint if tracing else None) or settings.endpoint
    protocol = (tracing.protocol if tracing else None) or settings.protocol
    env = [{"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": endpoint}] if endpoint else []
    return env + ([{"name": "OTEL_EXPORTER_OTLP_PROTOCOL", "value": protocol}] if protocol else [])


def _metrics_env(plan: Plan) -> list[dict[str, str]]:
    """What the sidecar is told of metrics beyond its defaults (on, at :8080, none custom)."""
    metrics, port = plan.spec.metrics, plan.settings.metrics.port
    if not metrics.enabled:
        return [{"name": "ASYA_METRICS_ENABLED", "value": "false"}]
    env = []
    if port != pod.SIDECAR_METRICS_PORT:
        env.append({"name": "ASYA_METRICS_ADDR", "value": f":{port}"})
    if metrics.custom:
        custom = [as_data(metric) for metric in metrics.custom]
        env.append({"name": "ASYA_CUSTOM_METRICS", "value": go_json(custom)})
    return env


def sidecar(plan: Plan) -> dict[str, Any]:
    """The Asya sidecar: it polls the queue and hands messages to the runtime.

    The validation stage has kept `sidecar.env` off the names the platform sets.
    """
    spec, settings = plan.spec, plan.settings.sidecar
    env: list[dict[str, Any]] = [
        {"name": "ASYA_LOG_LEVEL", "value": "info"},
        {"name": "ASYA_SOCKET_DIR", "value": settings.socket_dir},
        {"name": "ASYA_ACTOR_NAME", "value": plan.actor},
        {"name": "ASYA_NAMESPACE", "value": plan.namespace},
        {"name": "ASYA_ACTOR_SINK", "value": "x-sink"},
        {"name": "ASYA_ACTOR_SUMP", "value": "x-sump"},
        {"name": "ASYA_ACTOR_HAPPY_END", "value": "happy-end"},
        {"name": "ASYA_ACTOR_ERROR_END", "value": "error-end"},
        *transports.of(plan).sidecar_env(plan),
    ]
    if plan.actor in meta.SYSTEM_ACTORS:
        env.append({"name": "ASYA_IS_END_ACTOR", "value": "true"})
    platform = {item["name"]: index for index, item in enumerate(env)}
    for item in spec.sidecar.env if spec.sidecar else []:
        if item.name in pod.OVERRIDABLE_SIDECAR_ENV:
            env[platform[item.name]] = {"name": item.name, "value": item.value}
        else:
            env.append({"name": item.name, "value": item.value})
    env += _tracing_env(plan)
    resiliency = spec.resiliency
    if resiliency is not None and resiliency.policies:
        policies = {name: as_data(policy) for name, policy in resiliency.policies.items()}
        env.append({"name": "ASYA_RESILIENCY_POLICIES", "value": go_json(policies)})
    if resiliency is not None and resiliency.rules:
        rules = [as_data(rule) for rule in resiliency.rules]
        env.append({"name": "ASYA_RESILIENCY_RULES", "value": go_json(rules)})
    if resiliency is not None and resiliency.actor_timeout:
        env.append({"name": "ASYA_RESILIENCY_ACTOR_TIMEOUT", "value": resiliency.actor_timeout})
    env += _metrics_env(plan)
    image, policy = sidecar_image(plan)
    container: dict[str, Any] = {
        "name": pod.SIDECAR,
        "image": image,
        "imagePullPolicy": policy,
        "env": env,
        "volumeMounts": [
            {"name": pod.SOCKET_VOLUME, "mountPath": settings.socket_dir},
            {"name": pod.TMP_VOLUME, "mountPath": pod.TMP_PATH},
        ],
    }
    if spec.metrics.enabled:
        port = plan.settings.metrics.port
        container["ports"] = [
            {"name": pod.METRICS_PORT_NAME, "containerPort": port, "protocol": "TCP"}
        ]
    if env_from := meta.env_from_secret(transports.of(plan).credentials(plan).secret):
        container["envFrom"] = env_from
    if spec.sidecar is not None and spec.sidecar.resources:
        container["resources"] = spec.sidecar.resources
    return _hardened(plan, container)


def connectors(plan: Plan) -> list[dict[str, Any]]:
    """One connector container per state proxy."""
    out = []
    for proxy in plan.spec.state_proxy:
        connector = proxy.connector
        container: dict[str, Any] = {
            "name": pod.connector_name(proxy.name),
            "image": connector.image,
            "imagePullPolicy": connector.image_pull_policy,
            "env": [{"name": "CONNECTOR_SOCKET", "value": f"{pod.STATE_SOCKETS}/{proxy.name}.sock"}]
            + [{"name": e.name, "value": e.value} for e in connector.env],
            "volumeMounts": [{"name": pod.STATE_VOLUME, "mountPath": pod.STATE_SOCKETS}],
        }
        if connector.resources:
            container["resources"] = connector.resources
        out.append(_hardened(plan, container))
    return out
