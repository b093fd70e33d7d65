"""What plays the providers in the rig: small controllers, polling the API server.

`Queues` does provider-aws's part for SQS `Queue`s (both the cluster-scoped and the
namespaced kind): each is created in the queue API with its name and attributes, its
`status.atProvider.url`/`arn` and `Ready` written back, and it is deleted from the queue
API once its `Queue` is gone. `Objects` does provider-kubernetes' part for the v1 form:
each `Object`'s manifest is applied (server-side), the object as the cluster holds it is
copied into `status.atProvider.manifest`, and it is deleted when its `Object` goes
(unless its management policies leave deletion out). Neither is built from the
providers' code: provider-kubernetes is not built from its Go module here, and the
docs (docs/real-cluster.md) say so.
"""

from __future__ import annotations

import contextlib
import json
import threading
import traceback
from dataclasses import dataclass, field
from typing import Any

import boto3
from botocore.exceptions import ClientError

from tests.cluster import rig
from tests.cluster.life import AWS_ENV

QUEUE_KINDS = (("sqs.aws.upbound.io/v1beta1", "Queue"), ("sqs.aws.m.upbound.io/v1beta1", "Queue"))
OBJECT = ("kubernetes.crossplane.io/v1alpha2", "Object")
# The Queue's parameters and the SQS attributes they set (provider-aws' own mapping).
ATTRIBUTES = {
    "visibilityTimeoutSeconds": "VisibilityTimeout",
    "messageRetentionSeconds": "MessageRetentionPeriod",
    "receiveWaitTimeSeconds": "ReceiveMessageWaitTimeSeconds",
    "delaySeconds": "DelaySeconds",
    "maxMessageSize": "MaximumMessageSize",
    "redrivePolicy": "RedrivePolicy",
}
SINCE = "2026-01-01T00:00:00Z"


def conditions(ready: bool, message: str = "") -> list[dict[str, str]]:
    """Ready and Synced as a provider writes them."""
    synced = {"type": "Synced", "lastTransitionTime": SINCE}
    synced |= (
        {"status": "True", "reason": "ReconcileSuccess"}
        if not message
        else {"status": "False", "reason": "ReconcileError", "message": message}
    )
    state = (
        {"status": "True", "reason": "Available"}
        if ready
        else {"status": "False", "reason": "Creating"}
    )
    return [{"type": "Ready", "lastTransitionTime": SINCE, **state}, synced]


@dataclass
class Controller:
    """A loop in a thread: `sync` every `every` seconds until stopped; errors kept to show."""

    kube: rig.Kube
    every: float = 0.5
    errors: list[str] = field(default_factory=list)
    written: dict[str, str] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> None:
        threading.Thread(target=self._run, daemon=True, name=type(self).__name__).start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.sync()
            except Exception:  # kept, shown when a test fails, and retried
                self.errors = [*self.errors[-9:], traceback.format_exc()]

    def sync(self) -> None:
        raise NotImplementedError

    def list(self, api_version: str, kind: str) -> list[dict[str, Any]]:
        try:
            return self.kube.request("GET", self.kube.path(api_version, kind, None))["items"]  # type: ignore[no-any-return]
        except KeyError:  # the kind is not served on this control plane
            return []

    def write_status(self, body: dict[str, Any], status: dict[str, Any]) -> None:
        """Write a status when it changed (an unchanged write would wake Crossplane for nothing).

        What was written last is remembered by the object's uid: the API server's copy
        can differ in form (a number, a timestamp) from the same content as sent.
        """
        meta = body["metadata"]
        said = json.dumps(status, sort_keys=True)
        if self.written.get(meta["uid"]) == said:
            return
        self.written[meta["uid"]] = said
        identity = {k: meta[k] for k in ("name", "namespace") if k in meta}
        self.kube.apply(
            {
                "apiVersion": body["apiVersion"],
                "kind": body["kind"],
                "metadata": identity,
                "status": status,
            },
            status=True,
        )


@dataclass
class Queues(Controller):
    """provider-aws for SQS Queues, against the queue API at `endpoint`."""

    endpoint: str = ""
    made: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.sqs = boto3.client(
            "sqs",
            endpoint_url=self.endpoint,
            region_name=AWS_ENV["AWS_REGION"],
            aws_access_key_id=AWS_ENV["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=AWS_ENV["AWS_SECRET_ACCESS_KEY"],
        )

    def sync(self) -> None:
        queues = [q for kind in QUEUE_KINDS for q in self.list(*kind)]
        # The dead-letter queues first: a redrive policy names one that must exist.
        queues.sort(key=lambda q: "redrivePolicy" in q["spec"]["forProvider"])
        wanted = set()
        for queue in queues:
            name = queue["spec"]["forProvider"]["name"]
            wanted.add(name)
            if queue["metadata"].get("deletionTimestamp"):
                continue
            try:
                url, arn = self._create(name, queue["spec"]["forProvider"])
            except ClientError as refused:
                status = {**queue.get("status", {}), "conditions": conditions(False, str(refused))}
            else:
                status = {"atProvider": {"url": url, "arn": arn}, "conditions": conditions(True)}
            self.write_status(queue, status)
        for name in sorted(self.made - wanted):
            with contextlib.suppress(self.sqs.exceptions.QueueDoesNotExist):
                self.sqs.delete_queue(QueueUrl=self.sqs.get_queue_url(QueueName=name)["QueueUrl"])
            self.made.discard(name)

    def _create(self, name: str, parameters: dict[str, Any]) -> tuple[str, str]:
        attributes = {
            sqs: str(parameters[field_name])
            for field_name, sqs in ATTRIBUTES.items()
            if field_name in parameters
        }
        if name not in self.made:
            url = self.sqs.create_queue(QueueName=name)["QueueUrl"]
            self.made.add(name)
        else:
            url = self.sqs.get_queue_url(QueueName=name)["QueueUrl"]
        if attributes:
            self.sqs.set_queue_attributes(QueueUrl=url, Attributes=attributes)
        arn = self.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
        return url, arn["Attributes"]["QueueArn"]

    def messages(self, name: str) -> int:
        """How many messages wait in a queue (visible ones)."""
        url = self.sqs.get_queue_url(QueueName=name)["QueueUrl"]
        found = self.sqs.get_queue_attributes(
            QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"]
        )
        return int(found["Attributes"]["ApproximateNumberOfMessages"])

    def send(self, name: str, count: int) -> None:
        """Put `count` messages into a queue, as a producer would."""
        url = self.sqs.get_queue_url(QueueName=name)["QueueUrl"]
        for number in range(count):
            self.sqs.send_message(QueueUrl=url, MessageBody=f'{{"n": {number}}}')

    def purge(self, name: str) -> None:
        """Empty a queue."""
        self.sqs.purge_queue(QueueUrl=self.sqs.get_queue_url(QueueName=name)["QueueUrl"])

    def exists(self, name: str) -> bool:
        try:
            self.sqs.get_queue_url(QueueName=name)
        except self.sqs.exceptions.QueueDoesNotExist:
            return False
        return True


def _identity(manifest: dict[str, Any]) -> tuple[str, str, str | None, str]:
    meta = manifest.get("metadata", {})
    return manifest["apiVersion"], manifest["kind"], meta.get("namespace"), meta["name"]


# What the cluster adds to an object and provider-kubernetes leaves out of what it copies.
BOOKKEEPING = ("managedFields", "resourceVersion")


@dataclass
class Objects(Controller):
    """provider-kubernetes for Objects: apply, observe, delete."""

    applied: dict[str, tuple[tuple[str, str, str | None, str], bool]] = field(default_factory=dict)

    def sync(self) -> None:
        present = set()
        for body in self.list(*OBJECT):
            name = body["metadata"]["name"]
            present.add(name)
            if body["metadata"].get("deletionTimestamp"):
                continue
            self._reconcile(name, body)
        for name in sorted(set(self.applied) - present):
            (api_version, kind, namespace, target), deletes = self.applied.pop(name)
            if deletes:
                with contextlib.suppress(rig.KubeError):
                    self.kube.delete(api_version, kind, target, namespace)

    def _reconcile(self, name: str, body: dict[str, Any]) -> None:
        manifest = body["spec"]["forProvider"]["manifest"]
        policies = body["spec"].get("managementPolicies", ["*"])
        deletes = "*" in policies or "Delete" in policies
        self.applied[name] = (_identity(manifest), deletes)
        try:
            live = self._apply(manifest, policies)
        except rig.KubeError as refused:
            status = {
                **body.get("status", {}),
                "conditions": conditions(False, str(refused)[:1000]),
            }
        else:
            meta = {k: v for k, v in live["metadata"].items() if k not in BOOKKEEPING}
            status = {
                "atProvider": {"manifest": {**live, "metadata": meta}},
                "conditions": conditions(True),
            }
        self.write_status(body, status)

    def _apply(self, manifest: dict[str, Any], policies: list[str]) -> dict[str, Any]:
        api_version, kind, namespace, name = _identity(manifest)
        try:
            live = self.kube.get(api_version, kind, name, namespace)
        except rig.KubeError as missing:
            if missing.code != 404:
                raise
            live = None
        updates = "*" in policies or "Update" in policies
        if live is None or updates:
            live = self.kube.apply(json.loads(json.dumps(manifest)))
        return live  # type: ignore[no-any-return]
