"""The `flavors lint`, `flavors usage` and `explain` subcommands."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click
from crossplane.function import logging

from function.cli.render import files
from function.cli.render.errors import RenderError
from function.cli.tools import library, plan_report
from function.cli.tools import lint as linter
from function.cli.tools import plan as planner
from function.cli.tools import usage as flavor_usage
from function.cli.tools.library import plural
from function.errors import FunctionError
from function.models import input as fn_input
from function.models.input import Input
from function.resolve.sources import FLAVOR_LABEL

OUTPUT = click.Choice(["text", "json"])


def fail(message: str) -> NoReturn:
    """Say why a tool cannot go on, and exit 1."""
    click.echo(f"function-asya: error: {message}", err=True)
    sys.exit(1)


# The platform's Input decides what is refused (podSecurity, allowedVolumes, …).
COMPOSITION = click.option(
    "--composition",
    type=click.Path(exists=True, dir_okay=False),
    help="The Composition whose function-asya Input to judge with (default: an empty Input).",
)


def input_of(composition: str | None) -> Input:
    """The Input of a Composition's function-asya step; the defaults without one."""
    if composition is None:
        return Input()
    try:
        return fn_input.parse(library.step_input(files.load_composition(composition).body))
    except (RenderError, ValueError, FunctionError) as exc:
        fail(f"{composition}: {exc}")


@click.group()
def flavors() -> None:
    """Tools for a flavor library."""


@flavors.command("lint")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--actors",
    "actor_paths",
    multiple=True,
    type=click.Path(exists=True),
    help="Claims or XRs (files or directories) to resolve against the library.",
)
@click.option("-o", "--output", "output", type=OUTPUT, default="text", show_default=True)
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@COMPOSITION
def lint(
    paths: tuple[str, ...],
    actor_paths: tuple[str, ...],
    output: str,
    strict: bool,
    composition: str | None,
) -> None:
    """Check a flavor library (EnvironmentConfigs and ConfigMap flavors) as the function would.

    Reports invalid values (errors), every pair of flavors that cannot be combined
    (conflicts: alternatives are normal, so they never fail the run), fields a flavor
    cannot set and deprecated flavors (warnings) and, with --actors, each actor whose
    flavors are missing, conflict or fail validation (errors). Exit 0 without errors,
    1 with errors (with --strict, warnings too), 2 on usage errors.
    """
    started = time.perf_counter()
    try:
        entries = library.load(paths)
        actors = [doc.body for doc in library.actors(actor_paths)]
    except RenderError as exc:
        fail(str(exc))
    if not entries:
        # Most likely a wrong path in a CI job: a pass would hide it.
        fail(
            f"no flavors in {', '.join(paths)}: no EnvironmentConfig of "
            f"apiextensions.crossplane.io, and no ConfigMap labelled {FLAVOR_LABEL}"
        )
    findings = linter.lint(entries, actors, input_of(composition))
    if output == "json":
        click.echo(json.dumps([f.as_dict() for f in findings], indent=2))
    else:
        for finding in findings:
            click.echo(finding.as_text())
        nouns = {
            linter.ERROR: "error",
            linter.CONFLICT: "conflicting pair",
            linter.WARNING: "warning",
        }
        counted = [plural(sum(f.severity == s for f in findings), nouns[s]) for s in nouns]
        click.echo(
            f"{plural(len(entries), 'flavor')}, {plural(len(actors), 'actor')}: "
            f"{', '.join(counted)} ({time.perf_counter() - started:.2f} s)",
            err=True,
        )
    failing = {linter.ERROR, linter.WARNING} if strict else {linter.ERROR}
    sys.exit(1 if any(f.severity in failing for f in findings) else 0)


def _paths(
    flag: str, name: str, what: str, *, required: bool = True
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """An option naming files or directories, given once or more."""
    return click.option(
        *flag.split(),
        name,
        multiple=True,
        required=required,
        type=click.Path(exists=True),
        help=what,
    )


# The actors a tool reads: claims or XRs in files, or a kubectl List.
ACTORS = _paths(
    "--actors",
    "actor_paths",
    "Claims or XRs (files or directories), or `kubectl get asyncactors -A -o yaml`.",
)


@flavors.command("plan")
@_paths("--before", "before_paths", "The flavor library before the change: files or directories.")
@_paths("--after", "after_paths", "The flavor library after the change: files or directories.")
@ACTORS
@click.option(
    "--composition",
    type=click.Path(exists=True, dir_okay=False),
    help="The Composition whose Input renders them (default: the shipped SQS one of each actor's form).",
)
@click.option(
    "-o",
    "--output",
    "output",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
)
@click.option(
    "--fail-on",
    type=click.Choice(planner.VERDICTS[1:]),
    help="Exit 1 when any actor's verdict is this or worse (refused > restart > changed > fixed).",
)
@click.option(
    "--exit-code",
    is_flag=True,
    help="Exit as crossplane-diff does: 0 no change, 1 error, 2 refused, 3 changed.",
)
@click.option(
    "--step-summary",
    is_flag=True,
    help="Also append the Markdown report to $GITHUB_STEP_SUMMARY (GitHub Actions).",
)
def plan(
    before_paths: tuple[str, ...],
    after_paths: tuple[str, ...],
    actor_paths: tuple[str, ...],
    composition: str | None,
    output: str,
    fail_on: str | None,
    exit_code: bool,
    step_summary: bool,
) -> None:
    """What a change to the flavor library does to every actor, before it is applied.

    A flavor a later path defines again replaces the earlier one (a base library, then
    the files a change edits). Each actor is answered by the function's own pipeline with
    both libraries: unchanged; fixed (refused or waiting for a flavor before, composed
    after); changed (composed resources differ, the pod template does not); restart (the
    Deployment's pod template differs: pods roll); refused (the function would refuse
    it after the change, with its message). Exit 0; with --fail-on, 1 when any verdict is
    that or worse (an actor refused as before the change does not count); with
    --exit-code, 0 no change, 2 refused, 3 changed; 1 on errors, 2 on usage errors.
    """
    if fail_on is not None and exit_code:
        raise click.UsageError("--fail-on and --exit-code each decide the exit status: give one")
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY", "")
    if step_summary and not summary_file:
        raise click.UsageError("--step-summary: GITHUB_STEP_SUMMARY is not set")
    verdicts = _verdicts(before_paths, after_paths, actor_paths, composition)
    markdown = plan_report.as_markdown(verdicts) if output == "markdown" or step_summary else ""
    if output == "json":
        report = {
            "actors": [v.as_dict() for v in verdicts],
            "summary": plan_report.summary(verdicts),
        }
        click.echo(json.dumps(report, indent=2, sort_keys=True))
    elif output == "markdown":
        click.echo(markdown, nl=False)
    else:
        for line in plan_report.as_text(verdicts):
            click.echo(line)
    if step_summary:
        with Path(summary_file).open("a", encoding="utf-8") as found:
            found.write(markdown)
    if exit_code:
        sys.exit(plan_report.exit_code(verdicts))
    if fail_on is not None:
        sys.exit(1 if plan_report.fails(verdicts, fail_on) else 0)


def _verdicts(
    before_paths: tuple[str, ...],
    after_paths: tuple[str, ...],
    actor_paths: tuple[str, ...],
    composition: str | None,
) -> list[planner.Verdict]:
    """Read the libraries, actors and Compositions, and plan (a progress bar on a terminal)."""
    try:
        before = library.overlaid(library.load(before_paths))
        after = library.overlaid(library.load(after_paths))
        actors = [doc.body for doc in library.actors(actor_paths)]
        inputs = library.composition_inputs(composition)
    except (RenderError, ValueError) as exc:
        fail(str(exc))
    except FunctionError as exc:  # the Input does not parse
        fail(f"{composition}: {exc}")
    # The function logs each actor's flavors; here the report says what matters.
    logging.configure(level=logging.Level.DISABLED)
    with (
        click.progressbar(length=len(actors), label="Planning", file=sys.stderr)
        if sys.stderr.isatty()
        else contextlib.nullcontext() as bar
    ):
        return planner.plan(
            actors,
            before,
            after,
            lambda body: inputs[str(body.get("kind"))],
            progress=bar.update if bar is not None else None,
        )


@flavors.command("usage")
@ACTORS
@_paths(
    "-e --required-resources",
    "required",
    "The flavor library (EnvironmentConfigs, ConfigMap flavors): files or directories.",
    required=False,
)
@click.option("-o", "--output", "output", type=OUTPUT, default="text", show_default=True)
def usage(actor_paths: tuple[str, ...], required: tuple[str, ...], output: str) -> None:
    """Each flavor and the actors that list it.

    With the library (-e), also the flavors actors list that it does not define
    (missing), its deprecated flavors still in use, and those no actor lists. Exit 0,
    1 when a file cannot be read, 2 on usage errors.
    """
    try:
        documents = library.actors(actor_paths)
        # A flavor defined twice counts once, as its last definition (as plan reads it).
        entries = library.overlaid(library.load(required))
    except RenderError as exc:
        fail(str(exc))
    actors, problems = flavor_usage.actors_in(documents)
    for problem in problems:
        click.echo(f"function-asya: error: {problem}", err=True)
    uses = flavor_usage.usage(actors, entries)
    found = flavor_usage.report(uses)
    if output == "json":
        click.echo(json.dumps(found, indent=2))
    else:
        for line in flavor_usage.text(uses):
            click.echo(line)
        click.echo(
            f"{plural(len(actors), 'actor')}, {plural(len(entries), 'flavor')} in the library: "
            f"{len(found['missing'])} missing, {len(found['deprecatedInUse'])} deprecated in use, "
            f"{len(found['unused'])} unused",
            err=True,
        )
    # An actor it could not read is one it cannot answer for.
    sys.exit(1 if problems else 0)
