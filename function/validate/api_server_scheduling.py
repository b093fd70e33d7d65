"""The API server's rules for where a pod may run, the typed spec can still trip (api_server_checks).

Affinity terms, spread constraints and the label selectors in them.
"""

from __future__ import annotations

from function.models import names
from function.validate.schema_forms import Rules, enum, words

_WEIGHT = ({"properties": {"weight": {"minimum": 1, "maximum": 100}}}, {"weight": "from 1 to 100"})
# Label keys a term may name only beside its labelSelector.
_BESIDE_SELECTOR = {"dependentRequired": {"matchLabelKeys": ["labelSelector"]}}
_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")

ROWS: Rules = {
    "TopologySpreadConstraint": (
        {
            "properties": {
                "maxSkew": {"minimum": 1},
                "minDomains": {"minimum": 1},
                # Not held to a label key's form here, as it is in a pod affinity term.
                "topologyKey": {"minLength": 1},
                "whenUnsatisfiable": {"enum": ["DoNotSchedule", "ScheduleAnyway"]},
                "nodeAffinityPolicy": enum("Honor", "Ignore"),
                "nodeTaintsPolicy": enum("Honor", "Ignore"),
            },
            **_BESIDE_SELECTOR,
        },
        {
            "maxSkew": "greater than zero",
            "minDomains": "greater than zero",
            "topologyKey": "a label key (not empty)",
            "whenUnsatisfiable": "DoNotSchedule or ScheduleAnyway",
            "": "set with a labelSelector to name matchLabelKeys",
            "nodeAffinityPolicy": "Honor or Ignore",
            "nodeTaintsPolicy": "Honor or Ignore",
        },
    ),
    "NodeSelector": (
        {"properties": {"nodeSelectorTerms": {"minItems": 1}}},
        {"nodeSelectorTerms": "at least one node selector term"},
    ),
    "PreferredSchedulingTerm": _WEIGHT,
    "WeightedPodAffinityTerm": _WEIGHT,
    "PodAffinityTerm": (
        {
            "properties": {
                "topologyKey": {"minLength": 1, "pattern": names.LABEL_KEY},
                "namespaces": {"items": {"pattern": names.DNS_LABEL, "maxLength": 63}},
            },
            "dependentRequired": {
                "matchLabelKeys": ["labelSelector"],
                "mismatchLabelKeys": ["labelSelector"],
            },
        },
        {
            "topologyKey": "a label key (not empty)",
            "namespaces": "namespace names",
            "": "set with a labelSelector to name matchLabelKeys or mismatchLabelKeys",
        },
    ),
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": (
        {
            "properties": {
                "matchLabels": {
                    "propertyNames": {"pattern": names.LABEL_KEY},
                    "additionalProperties": {"pattern": names.LABEL_VALUE},
                }
            }
        },
        {"matchLabels": "labels: keys and values as Kubernetes names them"},
    ),
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement": (
        {
            "properties": {
                "operator": {"enum": list(_SELECTOR_OPERATORS)},
                "key": {"pattern": names.LABEL_KEY},
            },
            "if": {"properties": {"operator": {"enum": ["Exists", "DoesNotExist"]}}},
            "then": {"properties": {"values": {"maxItems": 0}}},
            "else": {"required": ["values"], "properties": {"values": {"minItems": 1}}},
        },
        {
            "operator": words(*_SELECTOR_OPERATORS),
            "key": "a label key",
            "values": "empty with Exists or DoesNotExist, else at least one value",
        },
    ),
}
