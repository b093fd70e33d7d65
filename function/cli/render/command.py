"""The `render` subcommand: arguments and flags as `crossplane render` has them."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click
import grpc
from crossplane.function import logging

from function.cli.render import (
    composed,
    engine,
    flags,
    legacy,
    output,
    pipeline,
    runtimes,
)
from function.cli.render.errors import PipelineFatalError, RenderError
from function.cli.render.inputs import RenderInputs, check_composition, observed_state, read
from function.cli.render.reconcile import Reconcile


async def render_documents(
    inputs: RenderInputs,
    *,
    include_full_xr: bool = False,
    include_results: bool = False,
    include_context: bool = False,
) -> tuple[list[dict[str, Any]], pipeline.Outcome]:
    """Render an XR through its Composition's pipeline; return the documents to print."""
    xr = inputs.xr
    check_composition(xr, inputs.composition)
    try:
        reconcile, outcome = await _run_pipeline(inputs)
        if reconcile is not None:
            applied = composed.resources(reconcile, outcome, inputs.observed)
            results = engine.results(reconcile, outcome)
        else:
            applied = legacy.composed(xr, outcome, inputs.observed)
            results = legacy.results(outcome)
    except RenderError as exc:
        # Only what the CLI's Render step does carries its prefix.
        raise RenderError(f"cannot render composite resource: {exc}") from None
    if reconcile is not None:
        documents = [engine.composite(reconcile, xr, outcome, applied, full=include_full_xr)]
    else:
        documents = [legacy.composite(xr, outcome, full=include_full_xr)]
    documents += applied
    if include_results:
        documents += results
    if include_context:
        documents.append(output.context_document(outcome))
    return documents, outcome


async def _run_pipeline(
    inputs: RenderInputs,
) -> tuple[Reconcile | None, pipeline.Outcome]:
    """Start the functions and run the pipeline, inside the reconcile for v2.3+."""
    spec = inputs.composition.body.get("spec") or {}
    # v2.3+ runs the reconciler, which hands the functions the XR as it holds it.
    reconcile = (
        engine.begin(inputs.xr, inputs.composition, inputs.observed, inputs.xrd)
        if inputs.follow.engine
        else None
    )
    observed_xr = reconcile.xr if reconcile else inputs.xr.body
    wanted = {str((s.get("functionRef") or {}).get("name", "")) for s in spec["pipeline"]}
    chosen = [runtimes.runtime_for(f) for f in inputs.functions if f.name in wanted]
    async with runtimes.started(chosen) as targets:
        channels = {name: grpc.aio.insecure_channel(target) for name, target in targets.items()}
        try:
            # Go's 0 means no deadline.
            deadline = inputs.timeout or None
            callers = {name: pipeline.Caller(ch, deadline) for name, ch in channels.items()}
            outcome = await asyncio.wait_for(
                pipeline.run(
                    inputs.composition,
                    observed_state(observed_xr, inputs.observed),
                    inputs.context,
                    callers,
                    inputs.supplied,
                    inputs.required,
                    inputs.secrets,
                    inputs.crds,
                    meta=inputs.follow.meta,
                ),
                timeout=deadline,
            )
        except PipelineFatalError as exc:
            raise RenderError(engine.fatal(exc) if reconcile else legacy.fatal(exc)) from None
        except TimeoutError:
            raise RenderError(f"timed out after {inputs.timeout:g}s") from None
        finally:
            for channel in channels.values():
                await channel.close()
    return reconcile, outcome


# `crossplane render`'s flags that only matter to Docker: taken, hidden, and noted as ignored.
DOCKER_ONLY = (
    "crossplane_image",
    "crossplane_binary",
    "crossplane_docker_network",
    "cache_dir",
    "max_concurrency",
)


def _docker_only_flags(command: Callable[..., None]) -> Callable[..., None]:
    """Take each of DOCKER_ONLY as a hidden flag (`--cache-dir`)."""
    for name in reversed(DOCKER_ONLY):
        flag = "--" + name.replace("_", "-")
        command = click.option(flag, hidden=True, help="Docker only: ignored.")(command)
    return command


@click.command(cls=flags.KongStyleCommand)
@click.argument("composite_resource", metavar="XR", callback=flags.existing_file())
@click.argument("composition_file", metavar="COMPOSITION", callback=flags.existing_file())
@click.argument("functions_file", metavar="FUNCTIONS")
@click.option(
    "--required-resources",
    "-e",
    "required",
    multiple=True,
    help="YAML file or directory of resources functions may require (repeatable).",
)
@click.option(
    "--extra-resources",
    "extra",
    multiple=True,
    help="Deprecated alias of --required-resources (repeatable).",
)
@click.option(
    "--observed-resources",
    "-o",
    "observed_path",
    help="YAML file or directory of observed composed resources.",
)
@click.option(
    "--include-function-results",
    "-r",
    is_flag=True,
    help="Print Normal and Warning results as Result documents.",
)
@click.option("--include-context", "-c", is_flag=True, help="Print the final pipeline context.")
@click.option(
    "--include-full-xr",
    "-x",
    is_flag=True,
    help="Copy the input XR's spec and metadata into the printed XR.",
)
@click.option(
    "--context-files",
    multiple=True,
    help="key=file;key=file context values read from files (pairs separated by ';').",
)
@click.option(
    "--context-values",
    multiple=True,
    help="key=json;key=json context values (pairs separated by ';': commas stay in values).",
)
@click.option(
    "--xrd",
    "xrd_path",
    callback=flags.existing_file("--xrd=PATH"),
    help="XRD whose schema defaults are applied to the XR first.",
)
@click.option(
    "--timeout",
    default="1m",
    show_default=True,
    callback=flags.duration,
    help="How long rendering may take (a Go duration: 30s, 1m30s).",
)
@click.option(
    "--function-annotations",
    "-a",
    "function_annotations",
    multiple=True,
    help="KEY=VALUE annotation set on every Function (repeatable), e.g. a runtime.",
)
@click.option(
    "--required-schemas",
    "-s",
    "schemas_path",
    help="YAML file or directory of CRDs answering the functions' schema requirements.",
)
@click.option(
    "--function-credentials",
    "credentials_path",
    help="YAML file or directory of Secrets the steps' credentials name.",
)
@click.option(
    "--crossplane-version",
    metavar="VERSION",
    help="The Crossplane release whose render to follow: v2.3 and later (the default) "
    "run the reconciler; v2.0-v2.2 print the desired state (see README).",
)
@_docker_only_flags
def render(
    composite_resource: str,
    composition_file: str,
    functions_file: str,
    required: tuple[str, ...],
    extra: tuple[str, ...],
    observed_path: str | None,
    include_function_results: bool,
    include_context: bool,
    include_full_xr: bool,
    context_files: tuple[str, ...],
    context_values: tuple[str, ...],
    **passed: Any,
) -> None:
    """Render XR through COMPOSITION's pipeline, like `crossplane render`, without Docker.

    function-asya itself is served in-process on a loopback port unless its Function
    has a render.crossplane.io/runtime-development-target annotation; other
    functions need the Development runtime annotation and a running server.
    """
    # stdout carries the YAML stream only; the in-process function must not log there.
    logging.configure(level=logging.Level.DISABLED)
    _note_ignored({flag: passed.pop(flag) for flag in DOCKER_ONLY})
    with _boundary():
        # The other flags name what to read (inputs.read's keywords).
        inputs = read(
            composite_resource,
            composition_file,
            functions_file,
            observed=observed_path,
            required=required,
            extra=extra,
            context=(context_files, context_values),
            **passed,
        )
        documents, _ = asyncio.run(
            render_documents(
                inputs,
                include_full_xr=include_full_xr,
                include_results=include_function_results,
                include_context=include_context,
            )
        )
    click.echo(output.dump(documents), nl=False)


def _note_ignored(docker_only: dict[str, Any]) -> None:
    """Say which of the flags given only matter to Docker, which is not used."""
    ignored = [name.replace("_", "-") for name, value in docker_only.items() if value is not None]
    if ignored:
        click.echo(
            f"function-asya: note: --{', --'.join(ignored)} only matter(s) to Docker: ignored",
            err=True,
        )


@contextlib.contextmanager
def _boundary() -> Iterator[None]:
    """The command's boundary: an error is one line on stderr and exit code 1, never a traceback."""
    try:
        yield
    except RenderError as exc:
        click.echo(f"function-asya: error: {exc}", err=True)
        sys.exit(1)
    except Exception as exc:  # noqa: BLE001  # never a traceback
        click.echo(
            f"function-asya: error: internal error ({type(exc).__name__}: {exc}); "
            "please report it with the files that caused it",
            err=True,
        )
        sys.exit(1)
