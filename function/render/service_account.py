"""The ServiceAccount that gives the actor's pods an AWS role (IRSA)."""

from __future__ import annotations

from typing import Any

from function.models.plan import Plan
from function.render import meta

ROLE_ARN_ANNOTATION = "eks.amazonaws.com/role-arn"


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
    irsa = plan.settings.irsa
    if not irsa.enabled:
        return None
    manifest = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {
            "name": irsa.service_account_name,
            "namespace": plan.namespace,
            "labels": meta.labels(plan, "serviceaccount"),
            "annotations": {ROLE_ARN_ANNOTATION: role_arn(plan)},
        },
    }
    return meta.compose(plan, manifest, watch=True)
