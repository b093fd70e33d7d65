"""The ServiceAccount that gives the actor's pods an AWS role (IRSA).

One actor never deletes another's ServiceAccount (docs/install.md, "The ServiceAccount per form"). In the v1 form the
name is the Input's shared one, as upstream (a drop-in), and its Object never
deletes it: every actor of the namespace uses it. In the v2 form two XRs cannot
control one object, so each actor composes its own `asya-<actor>`.
"""

from __future__ import annotations

from typing import Any

from function.compose.renderers import meta, transports
from function.models.plan import Plan

ROLE_ARN_ANNOTATION = "eks.amazonaws.com/role-arn"
# The shared ServiceAccount's Object may create and update it, never delete it.
KEEP_ON_DELETE = ("Observe", "Create", "Update", "LateInitialize")


def role_arn(plan: Plan) -> str:
    """The role ARN: `irsa.roleArn` as is, else the pattern with namespace and account filled in."""
    irsa = plan.settings.irsa
    if irsa.role_arn:
        return irsa.role_arn
    arn = irsa.role_arn_pattern.replace("{namespace}", plan.namespace)
    if plan.settings.aws.account_id:
        arn = arn.replace("ACCOUNT_ID", plan.settings.aws.account_id)
    return arn


def render(plan: Plan) -> dict[str, Any] | None:
    """Render the ServiceAccount, or nothing when IRSA is off."""
    if not transports.of(plan).credentials(plan).irsa:
        return None
    if plan.xr.namespaced:
        labels = meta.labels(plan, "serviceaccount")
    else:
        # Shared by every actor of the namespace: labels no single actor owns, so the
        # actors' Objects apply the same manifest instead of fighting over it.
        labels = {
            "app.kubernetes.io/component": "serviceaccount",
            "app.kubernetes.io/part-of": "asya",
            "app.kubernetes.io/managed-by": "crossplane",
        }
    manifest = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {
            "name": meta.service_account_name(plan),
            "namespace": plan.namespace,
            "labels": labels,
            "annotations": {ROLE_ARN_ANNOTATION: role_arn(plan)},
        },
    }
    wrapped = meta.compose(plan, manifest, watch=True, management_policies=KEEP_ON_DELETE)
    if not plan.xr.namespaced:
        # The Object itself is the actor's: it carries the actor's labels.
        wrapped["metadata"]["labels"] = meta.labels(plan, "serviceaccount")
    return wrapped
