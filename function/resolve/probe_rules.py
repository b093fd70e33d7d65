"""What the API server checks beyond the schemas of a container's probes and lifecycle hooks.

A probe and a hook each have exactly one handler; a probe's counts are never negative;
an exec runs a command; a port is a number from 1 to 65535 or a port's name; a header's
name is a header name. kube_rules takes these in with the pod's other rules.
"""

from __future__ import annotations

from function.resolve import rule_parts as parts

PORT = {"minimum": 1, "maximum": 65535}
PORT_NAME = r"^(?!.*--)(?=.*[a-z])[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?$"
PORT_NAME_SAID = (
    "at most 15 lowercase letters, digits and single '-', with a letter, not starting or ending "
    "with '-'"
)
# A probe's or a lifecycle hook's port: a number, or the name of one of the container's ports.
PORT_OR_NAME = {"anyOf": [{"type": "integer", **PORT}, {"type": "string", "pattern": PORT_NAME}]}
PORT_OR_NAME_SAID = f"a port from 1 to 65535, or a port's name: {PORT_NAME_SAID}"
COUNTS = {"minimum": 0}
COUNT_SAID = "0 or more"
# The API server defaults a probe's successThreshold of 0 to 1.
ONE_SUCCESS = {"properties": {"successThreshold": {"maximum": 1}}}


RULES: parts.Rules = {
    "Probe": (
        {
            "properties": {
                "initialDelaySeconds": COUNTS,
                "timeoutSeconds": COUNTS,
                "periodSeconds": COUNTS,
                "successThreshold": COUNTS,
                "failureThreshold": COUNTS,
                "terminationGracePeriodSeconds": {"minimum": 1},
            },
            **parts.exactly_one("exec", "httpGet", "tcpSocket", "grpc"),
        },
        {
            "": "set with exactly one handler: exec, httpGet, tcpSocket or grpc",
            "initialDelaySeconds": COUNT_SAID,
            "timeoutSeconds": COUNT_SAID,
            "periodSeconds": COUNT_SAID,
            "successThreshold": COUNT_SAID,
            "failureThreshold": COUNT_SAID,
            "terminationGracePeriodSeconds": "1 or more, when set (and unset on a readiness probe)",
        },
    ),
    "Lifecycle": (
        {"properties": {"stopSignal": {"type": "null"}}},
        {
            "stopSignal": "unset: Kubernetes drops a stop signal unless its ContainerStopSignals "
            "feature is on, and then takes one only in a pod that names its OS (spec.os), which "
            "an actor's pod does not"
        },
    ),
    "LifecycleHandler": (
        parts.exactly_one("exec", "httpGet", "tcpSocket", "sleep"),
        {"": "set with exactly one handler: exec, httpGet, tcpSocket or sleep"},
    ),
    "ExecAction": (
        {"required": ["command"], "properties": {"command": {"type": "array", "minItems": 1}}},
        {"command": "a command of at least one word", "": "set with a command"},
    ),
    "HTTPGetAction": (
        {
            "properties": {
                "port": PORT_OR_NAME,
                "scheme": {"enum": [None, "", "HTTP", "HTTPS"]},
            }
        },
        {"port": PORT_OR_NAME_SAID, "scheme": "HTTP or HTTPS"},
    ),
    "TCPSocketAction": (
        {"properties": {"port": PORT_OR_NAME}},
        {"port": PORT_OR_NAME_SAID},
    ),
    "GRPCAction": (
        {"properties": {"port": PORT}},
        {"port": "a port from 1 to 65535"},
    ),
    "SleepAction": (
        {"properties": {"seconds": {"minimum": 0}}},
        {"seconds": COUNT_SAID},
    ),
    "HTTPHeader": (
        {"properties": {"name": {"pattern": r"^[-A-Za-z0-9]+$"}}},
        {"name": "a header name: letters, digits and '-'"},
    ),
}

# Fields the strict schemas require but the API server takes absent: Go reads the zero
# value, which it accepts (a hook's sleep of 0 seconds, a header's empty value).
OPTIONAL: dict[str, tuple[str, ...]] = {"SleepAction": ("seconds",), "HTTPHeader": ("value",)}
