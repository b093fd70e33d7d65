"""`function-asya render`: the crossplane render contract, through real gRPC calls."""

from __future__ import annotations

import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function.cli.render import defaults, output
from tests import support
from tests.rendercli.scripted import Scripted, scripted_server

pytestmark = pytest.mark.slow
# The v2.0-v2.2 output: the desired state as the CLI used to print it.
V2_2 = ("--crossplane-version", "v2.2.4")

XR = """
apiVersion: example.org/v1
kind: XThing
metadata:
  name: thing-abc
  uid: 1234-uid
  labels:
    crossplane.io/claim-name: thing
    crossplane.io/claim-namespace: team
spec:
  size: 1
"""


def composition(*behaviours: str) -> str:
    steps = "".join(
        f"""
    - step: step-{n}
      functionRef:
        name: scripted
      input:
        behaviour: {behaviour}"""
        for n, behaviour in enumerate(behaviours)
    )
    return f"""
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: things
spec:
  compositeTypeRef:
    apiVersion: example.org/v1
    kind: XThing
  mode: Pipeline
  pipeline:{steps}
"""


def functions(target: str) -> str:
    return f"""
apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: scripted
  annotations:
    render.crossplane.io/runtime: Development
    render.crossplane.io/runtime-development-target: {target}
spec:
  package: example.org/scripted:v1
"""


@pytest.fixture
def scripted() -> Iterator[tuple[Scripted, str]]:
    with scripted_server() as served:
        yield served


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def xrd_file(tmp_path: Path, version: str = "v1", schema: str = "{type: object}") -> str:
    """An XRD for XThing with one version; `schema` is its openAPIV3Schema (flow YAML)."""
    return write(
        tmp_path,
        "xrd.yaml",
        f"""
        apiVersion: apiextensions.crossplane.io/v1
        kind: CompositeResourceDefinition
        metadata: {{name: xthings.example.org}}
        spec:
          group: example.org
          names: {{kind: XThing, plural: xthings}}
          versions:
          - {{name: {version}, served: true, referenceable: true, schema: {{openAPIV3Schema: {schema}}}}}
        """,
    )


def render(
    tmp_path: Path,
    target: str,
    *behaviours: str,
    args: tuple[str, ...] = (),
    xr: str = XR,
    step: str = "",
) -> subprocess.CompletedProcess[str]:
    """Render through the scripted function; `step` is YAML added to every pipeline step."""
    pipeline = composition(*behaviours).replace("      input:", f"{step}      input:")
    return support.render_cli(
        write(tmp_path, "xr.yaml", xr),
        write(tmp_path, "composition.yaml", pipeline),
        write(tmp_path, "functions.yaml", functions(target)),
        *args,
    )


def documents(result: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert result.returncode == 0, result.stderr
    return [d for d in yaml.safe_load_all(result.stdout) if d is not None]


def test_a_required_resource_arrives_on_the_second_call(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    settings = write(
        tmp_path,
        "settings.yaml",
        """
        apiVersion: apiextensions.crossplane.io/v1beta1
        kind: EnvironmentConfig
        metadata:
          name: settings
        data:
          colour: blue
        ---
        apiVersion: apiextensions.crossplane.io/v1beta1
        kind: EnvironmentConfig
        metadata:
          name: unrelated
        data:
          colour: red
    """,
    )
    docs = documents(render(tmp_path, target, "require", args=("--required-resources", settings)))
    assert len(function.calls) == 2
    assert "cfg" not in function.calls[0].required_resources
    second = function.calls[1].required_resources["cfg"]
    assert [item.resource["metadata"]["name"] for item in second.items] == ["settings"]
    config = docs[1]
    assert config["data"] == {"colour": "blue"}


def test_a_required_resource_that_is_absent_arrives_as_an_empty_key(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    docs = documents(render(tmp_path, target, "require"))
    assert len(function.calls) == 2
    assert "cfg" in function.calls[1].required_resources
    assert len(function.calls[1].required_resources["cfg"].items) == 0
    assert docs[1]["kind"] == "ConfigMap"


def test_extra_resources_flag_supplies_the_same_resources(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    settings = write(
        tmp_path,
        "settings.yaml",
        """
        apiVersion: apiextensions.crossplane.io/v1beta1
        kind: EnvironmentConfig
        metadata: {name: settings}
        data: {colour: green}
    """,
    )
    docs = documents(render(tmp_path, target, "require", args=("--extra-resources", settings)))
    assert docs[1]["data"] == {"colour": "green"}


def test_requirements_that_never_stabilise_fail_with_crossplanes_message(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    result = render(tmp_path, target, "unstable")
    assert result.returncode == 1
    assert result.stdout == ""
    assert (
        "requirements didn't stabilize after the maximum number of iterations (5)" in result.stderr
    )
    assert 'pipeline step "step-0"' in result.stderr
    assert len(function.calls) == 6


def test_v2_2_output_carries_composed_metadata_conditions_results_and_context(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    docs = documents(render(tmp_path, target, "emit", args=("-r", "-c", *V2_2)))
    xr, waiting, ready, result, context = docs
    assert xr["apiVersion"] == "example.org/v1"
    assert xr["kind"] == "XThing"
    assert xr["metadata"] == {"name": "thing-abc"}
    assert xr["status"]["phase"] == "Creating"
    conditions = {c["type"]: c for c in xr["status"]["conditions"]}
    assert conditions["Ready"] == {
        "type": "Ready",
        "status": "False",
        "reason": "Creating",
        "message": "Unready resources: a-waiting",
        "lastTransitionTime": "2024-01-01T00:00:00Z",
    }
    assert conditions["Custom"]["message"] == "all good"
    # Composed resources are sorted by composition resource name.
    assert [waiting["kind"], ready["kind"]] == ["Secret", "ConfigMap"]
    meta = waiting["metadata"]
    assert meta["annotations"] == {"crossplane.io/composition-resource-name": "a-waiting"}
    assert meta["generateName"] == "thing-abc-"
    assert meta["labels"] == {
        "crossplane.io/composite": "thing-abc",
        "crossplane.io/claim-name": "thing",
        "crossplane.io/claim-namespace": "team",
    }
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "example.org/v1",
            "kind": "XThing",
            "name": "thing-abc",
            "uid": "1234-uid",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert result == {
        "apiVersion": "render.crossplane.io/v1beta1",
        "kind": "Result",
        "step": "step-0",
        "severity": "SEVERITY_WARNING",
        "message": "something to look at",
    }
    assert context["kind"] == "Context"
    assert context["fields"]["example.org/key"] == {"n": 1}


def test_observed_resources_keep_their_names(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    observed = write(
        tmp_path,
        "observed.yaml",
        """
        apiVersion: v1
        kind: Secret
        metadata:
          name: thing-abc-x9z8y
          annotations:
            crossplane.io/composition-resource-name: a-waiting
    """,
    )
    docs = documents(render(tmp_path, target, "emit", args=("-o", observed)))
    waiting = docs[1]
    assert waiting["metadata"]["name"] == "thing-abc-x9z8y"
    assert "generateName" not in waiting["metadata"]


def test_v2_2_include_full_xr_copies_spec_and_metadata(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    xr = documents(render(tmp_path, target, "emit", args=("-x", *V2_2)))[0]
    assert xr["spec"] == {"size": 1}
    assert xr["metadata"]["uid"] == "1234-uid"


def test_context_values_reach_the_function(tmp_path: Path, scripted: tuple[Scripted, str]) -> None:
    function, target = scripted
    context_file = write(tmp_path, "ctx.yaml", "region: eu-west-1\n")
    documents(
        render(
            tmp_path,
            target,
            "emit",
            args=(
                "--context-files",
                f"from-file={context_file}",
                "--context-values",
                'inline={"a": true}',
            ),
        )
    )
    context = function.calls[0].context
    assert context["from-file"]["region"] == "eu-west-1"
    assert context["inline"]["a"] is True


def test_a_fatal_result_prints_the_pipeline_error_and_exits_one(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    result = render(tmp_path, target, "emit", "fatal")
    assert result.returncode == 1
    assert result.stdout == ""
    assert 'pipeline step "step-1" returned a fatal result: this cannot work' in result.stderr


def test_xrd_defaults_are_applied_before_rendering(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    schema = (
        "{type: object, properties: {spec: {type: object, properties: {"
        "size: {type: integer, default: 5}, colour: {type: string, default: blue}, "
        "nested: {type: object, properties: {depth: {type: integer, default: 2}}}}}}}"
    )
    xrd = xrd_file(tmp_path, schema=schema)
    documents(render(tmp_path, target, "emit", args=("--xrd", xrd)))
    spec = function.calls[0].observed.composite.resource["spec"]
    assert spec["size"] == 1  # the XR's own value stays
    assert spec["colour"] == "blue"
    assert "nested" not in spec  # nested defaults need their parent object


@pytest.mark.parametrize(
    ("which", "content", "message"),
    [
        pytest.param("xr", "a: [unclosed", "cannot parse", id="xr-not-yaml"),
        pytest.param("xr", "just: a map\n", "is not a Kubernetes object", id="xr-no-kind"),
        pytest.param(
            "xr",
            "apiVersion: v1\nkind: X\n" + support.yaml_bomb(),
            "contains excessive aliasing",
            id="xr-yaml-bomb",
        ),
        pytest.param(
            "composition",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
            "not a composition: ConfigMap/c",
            id="composition-wrong-kind",
        ),
        pytest.param(
            "composition",
            composition("emit").replace("apiextensions.crossplane.io/v1", "example.org/v1"),
            "not a composition: Composition/things",
            id="composition-wrong-api-version",
        ),
        pytest.param(
            "functions",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
            "not a function: Pod/p",
            id="functions-wrong-kind",
        ),
        pytest.param(
            "functions",
            "apiVersion: pkg.crossplane.io/v2\nkind: Function\nmetadata: {name: f}\n",
            "not a function: Function/f",
            id="functions-wrong-api-version",
        ),
    ],
)
def test_bad_input_files_exit_one_naming_the_file(
    tmp_path: Path, which: str, content: str, message: str
) -> None:
    paths = {
        "xr": write(tmp_path, "xr.yaml", XR),
        "composition": write(tmp_path, "composition.yaml", composition("emit")),
        "functions": write(tmp_path, "functions.yaml", functions("127.0.0.1:1")),
    }
    paths[which] = write(tmp_path, f"bad-{which}.yaml", content)
    result = support.render_cli(paths["xr"], paths["composition"], paths["functions"])
    assert result.returncode == 1
    assert message in result.stderr
    assert f"bad-{which}.yaml" in result.stderr or which == "composition"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("nope.yaml", "c.yaml", "f.yaml"), "stat nope.yaml: no such file or directory"),
        (("--bogus",), "unknown flag --bogus"),
        (("--xrd", "nope.yaml", "x", "c", "f"), "--xrd=PATH: stat nope.yaml: no such file"),
        (
            (
                str(support.ROOT / "examples" / "image-enhancer" / "xr.yaml"),
                str(support.ROOT / "examples" / "composition.yaml"),
                "f.yaml",
                "--timeout",
                "abc",
            ),
            '--timeout: time: invalid duration "abc"',
        ),
    ],
    ids=["missing XR", "unknown flag", "missing XRD", "a timeout that is no duration"],
)
def test_a_usage_error_prints_help_on_stdout_and_exits_80(
    tmp_path: Path, args: tuple[str, ...], error: str
) -> None:
    # kong with UsageOnError (render-fidelity §1 row 9): help on stdout, error on stderr.
    result = support.render_cli(*args, cwd=tmp_path)
    assert result.returncode == 80
    assert result.stdout.startswith("Usage: function-asya render [OPTIONS] XR COMPOSITION")
    assert result.stdout.endswith("\n\n")
    assert result.stderr.startswith(f"function-asya: error: {error}")
    assert result.stderr.count("\n") == 1


def test_the_installed_binary_renders_the_example() -> None:
    # `make render` end to end: the entry point, the in-process server, stdout, status.
    result = support.render_process(
        "examples/image-enhancer/xr.yaml",
        "examples/composition.yaml",
        "examples/functions.yaml",
        "--required-resources",
        "examples/flavors",
        "--observed-resources",
        "examples/image-enhancer/observed/ready.yaml",
        cwd=support.ROOT,
    )
    assert result.stderr == ""
    kinds = [d["kind"] for d in documents(result)]
    assert kinds[0] == "XAsyncActor"
    assert "Queue" in kinds


def test_the_installed_binary_exits_80_on_a_usage_error(tmp_path: Path) -> None:
    result = support.render_process("--bogus", cwd=tmp_path)
    assert result.returncode == 80
    assert result.stdout.startswith("Usage: function-asya render [OPTIONS] XR COMPOSITION")
    assert result.stderr == "function-asya: error: unknown flag --bogus\n"


def test_help_is_printed_on_stdout() -> None:
    result = support.render_cli("--help")
    assert result.returncode == 0
    assert result.stdout.startswith("Usage: function-asya render")
    assert "--crossplane-version VERSION" in result.stdout
    # The map flags' separator is said (a ';' between pairs, as the real CLI takes them).
    help_text = " ".join(result.stdout.split())
    assert "key=file;key=file context values read from files (pairs separated by ';')" in help_text
    assert "key=json;key=json context values (pairs separated by ';'" in help_text
    assert result.stderr == ""


def test_v2_2_loads_an_observed_resource_without_its_resource_name_under_the_empty_name(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    # crossplane render v2.2 loads it with no check (render-fidelity §1 row 10).
    function, target = scripted
    observed = write(
        tmp_path, "observed.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
    )
    result = render(tmp_path, target, "emit", args=("-o", observed, *V2_2))
    assert result.returncode == 0, result.stderr
    assert list(function.calls[0].observed.resources) == [""]


def test_context_values_split_on_semicolons_and_keep_commas_and_dates(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    result = render(
        tmp_path,
        target,
        "emit",
        args=("--context-values", 'json={"a":1,"b":2};day=2024-01-01;plain=x'),
    )
    assert result.returncode == 0, result.stderr
    context = function.calls[0].context
    assert context["json"] == {"a": 1, "b": 2}
    assert context["day"] == "2024-01-01"  # a date stays text, as Kubernetes' YAML keeps it
    assert context["plain"] == "x"


@pytest.mark.parametrize(
    ("timeout", "ok"),
    [
        pytest.param("1m30s", True, id="minutes and seconds"),
        pytest.param("0", True, id="zero: no deadline"),
        pytest.param("1.5h", True, id="a fraction"),
        pytest.param("300ms", True, id="milliseconds"),
        pytest.param("90", False, id="a number without a unit"),
        pytest.param("1m30", False, id="a trailing number"),
    ],
)
def test_timeout_is_a_go_duration(
    tmp_path: Path, scripted: tuple[Scripted, str], timeout: str, ok: bool
) -> None:
    _, target = scripted
    result = render(tmp_path, target, "emit", args=("--timeout", timeout))
    assert (result.returncode == 0) is ok, result.stderr
    if not ok:
        assert f'time: invalid duration "{timeout}"' in result.stderr


def test_a_directory_without_yaml_is_an_error_and_json_is_not_loaded(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "resource.json").write_text('{"apiVersion": "v1", "kind": "ConfigMap"}')
    result = render(tmp_path, target, "emit", args=("-e", str(empty)))
    assert result.returncode == 1
    assert f'no YAML files found in "{empty}" (.yaml or .yml)' in result.stderr


def test_a_composition_for_another_type_is_rejected(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    result = render(tmp_path, target, "emit", xr=XR.replace("kind: XThing", "kind: XOther"))
    assert result.returncode == 1
    assert "does not match XR's kind (XOther)" in result.stderr


def test_a_response_protobuf_cannot_decode_is_a_clear_error(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    result = render(tmp_path, target, "deep")
    assert result.returncode == 1
    assert result.stderr == (
        "function-asya: error: cannot render composite resource: cannot run pipeline step "
        '"step-0": cannot decode the function\'s response (protobuf refuses messages nested '
        "more than 100 levels deep)\n"
    )


def test_an_unknown_runtime_is_an_error_naming_it(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    result = render(tmp_path, target, "emit", args=("-a", "render.crossplane.io/runtime=Bogus"))
    assert result.returncode == 1
    assert (
        'unsupported "render.crossplane.io/runtime" annotation value "Bogus" (unknown runtime)'
        in (result.stderr)
    )


def test_function_annotations_override_every_functions_own(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    # The Function's own target: nothing listens there; -a points it at the function.
    result = render(
        tmp_path,
        "127.0.0.1:1",
        "emit",
        args=("-a", f"render.crossplane.io/runtime-development-target={target}"),
    )
    assert result.returncode == 0, result.stderr
    assert len(function.calls) == 1


def test_docker_only_flags_are_accepted_and_ignored_with_a_note(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    result = render(
        tmp_path,
        target,
        "emit",
        args=(
            "--crossplane-image",
            "x:1",
            "--max-concurrency",
            "4",
            "--crossplane-version",
            "v2.2.4",
        ),
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == (
        "function-asya: note: --crossplane-image, --max-concurrency only matter(s) to Docker: "
        "ignored"
    )


def test_function_asya_with_the_development_runtime_is_dialled_not_served(
    tmp_path: Path,
) -> None:
    # Nothing listens at the target: the real CLI would wait for it; a short timeout fails.
    development = (support.ROOT / "examples" / "functions-development.yaml").read_text()
    path = write(
        tmp_path,
        "functions.yaml",
        development.replace(
            "render.crossplane.io/runtime: Development",
            "render.crossplane.io/runtime: Development\n"
            "    render.crossplane.io/runtime-development-target: 127.0.0.1:1",
        ),
    )
    result = support.render_cli(
        str(support.ROOT / "examples" / "image-enhancer" / "xr.yaml"),
        str(support.ROOT / "examples" / "composition.yaml"),
        path,
        "--timeout",
        "0.3s",
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        "function-asya: error: cannot render composite resource: timed out after 0.3s\n"
    )


def test_output_is_written_as_the_kubernetes_serializer_writes_it() -> None:
    # Lines as crossplane render prints them (crossplane PR #5248, function-kcl PR #231,
    # render-fidelity §1 row 3).
    text = output.dump(
        [
            {
                "metadata": {"uid": "", "name": "café"},
                "status": {
                    "conditions": [
                        {
                            "lastTransitionTime": "2024-01-01T00:00:00Z",
                            "status": "True",
                            "type": "Ready",
                        }
                    ]
                },
                "data": {"script": "set -e\necho hi\n", "replicas": "4", "count": 4},
            }
        ]
    )
    assert text == (
        "---\n"
        "data:\n"
        "  count: 4\n"
        '  replicas: "4"\n'
        "  script: |\n"
        "    set -e\n"
        "    echo hi\n"
        "metadata:\n"
        "  name: café\n"
        '  uid: ""\n'
        "status:\n"
        "  conditions:\n"
        '  - lastTransitionTime: "2024-01-01T00:00:00Z"\n'
        '    status: "True"\n'
        "    type: Ready\n"
    )


def test_a_steps_bootstrap_requirements_arrive_on_every_call(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    requirements = (
        "      requirements:\n"
        "        requiredResources:\n"
        "          - requirementName: settings\n"
        "            apiVersion: v1\n"
        "            kind: ConfigMap\n"
        "            name: settings\n"
        "            namespace: team\n"
    )
    settings = write(
        tmp_path,
        "settings.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: team}\n",
    )

    def run(flag: str) -> subprocess.CompletedProcess[str]:
        function.calls.clear()
        # "require" asks for more on its first call: two calls, both with the bootstrap.
        return render(tmp_path, target, "require", step=requirements, args=(flag, settings))

    assert run("--required-resources").returncode == 0
    assert len(function.calls) == 2
    for call in function.calls:
        [item] = call.required_resources["settings"].items
        assert item.resource["metadata"]["name"] == "settings"
    # crossplane render answers bootstrap requirements from --required-resources only.
    assert run("--extra-resources").returncode == 0
    assert len(function.calls[0].required_resources["settings"].items) == 0


def test_step_credentials_come_from_function_credentials(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    credentials = (
        "      credentials:\n"
        "        - name: api\n"
        "          source: Secret\n"
        "          secretRef: {namespace: crossplane-system, name: api-creds}\n"
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return render(tmp_path, target, "emit", step=credentials, args=args)

    missing = run()
    assert missing.returncode == 1
    assert 'cannot get credentials from secret "api-creds": secret "api-creds" not found' in (
        missing.stderr
    )
    secret = write(
        tmp_path,
        "secret.yaml",
        "apiVersion: v1\nkind: Secret\n"
        "metadata: {name: api-creds, namespace: crossplane-system}\n"
        "data: {token: c2VjcmV0}\n",
    )
    assert run("--function-credentials", secret).returncode == 0
    assert function.calls[-1].credentials["api"].credential_data.data["token"] == b"secret"


def test_schema_requirements_are_answered_from_required_schemas(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    crd = write(
        tmp_path,
        "crd.yaml",
        """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.example.org}
        spec:
          group: example.org
          names: {kind: Widget, plural: widgets}
          scope: Namespaced
          versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema:
                  type: object
                  properties: {size: {type: integer}}
        """,
    )
    result = render(tmp_path, target, "schema", args=("-s", crd))
    assert result.returncode == 0, result.stderr
    first, second = function.calls
    assert fnv1.CAPABILITY_REQUIRED_SCHEMAS in first.meta.capabilities
    schema = second.required_schemas["widget"].openapi_v3
    assert schema["properties"]["size"]["type"] == "integer"


def test_xrd_defaults_fill_a_null_the_schema_does_not_allow(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {
            "plain": {"type": "string", "default": "filled"},
            "nullable": {"type": "string", "default": "filled", "nullable": True},
        },
    }
    # structuraldefaulting: a non-nullable null is absent; a nullable one stays null.
    assert defaults.apply(schema, {"plain": None, "nullable": None}) == {
        "plain": "filled",
        "nullable": None,
    }


def test_an_xrd_without_the_xrs_version_is_refused_in_crossplanes_words(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    xrd = xrd_file(tmp_path, version="v2")
    result = render(tmp_path, target, "emit", args=("--xrd", xrd))
    assert result.returncode == 1
    assert result.stderr == (
        'function-asya: error: cannot default values for XR "thing-abc": the specified API '
        "version 'example.org/v1' does not exist in the XRD\n"
    )


def test_v2_2_include_full_xr_refuses_an_xr_without_a_spec(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    # v2.0-v2.2 (render-fidelity §1 row 17); v2.3+ merges instead.
    _, target = scripted
    xr = "apiVersion: example.org/v1\nkind: XThing\nmetadata: {name: thing-abc}\n"
    result = render(tmp_path, target, "emit", args=("-x", *V2_2), xr=xr)
    assert result.returncode == 1
    assert result.stderr == (
        "function-asya: error: cannot get composite resource spec: spec: no such field\n"
    )
    merged = documents(render(tmp_path, target, "emit", args=("-x",), xr=xr))[0]
    assert merged["metadata"]["name"] == "thing-abc"
    assert "resourceRefs" in merged["spec"]["crossplane"]


def test_the_first_object_of_the_xr_file_is_the_xr(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    # yaml.Unmarshal reads the first document of a stream (render-fidelity §1 row 18).
    function, target = scripted
    second = "---\napiVersion: example.org/v1\nkind: XOther\nmetadata: {name: other}\n"
    documents(render(tmp_path, target, "emit", xr=XR + second))
    assert function.calls[0].observed.composite.resource["metadata"]["name"] == "thing-abc"


@pytest.mark.parametrize("version", [(), V2_2], ids=["v2.3", "v2.2"])
def test_an_owner_reference_to_the_xr_is_replaced_in_place(
    tmp_path: Path, scripted: tuple[Scripted, str], version: tuple[str, ...]
) -> None:
    # AddControllerReference replaces the reference with the same UID where it stands.
    _, target = scripted
    observed = write(
        tmp_path,
        "observed.yaml",
        """
        apiVersion: v1
        kind: Secret
        metadata:
          name: kept
          annotations: {crossplane.io/composition-resource-name: a-waiting}
        """,
    )
    docs = documents(render(tmp_path, target, "emit", "owned", args=("-o", observed, *version)))
    references = docs[1]["metadata"]["ownerReferences"]
    assert [r["uid"] for r in references] == ["1234-uid", "other-owner"]
    assert references[0]["controller"] is True


@pytest.mark.parametrize(
    ("xr", "scope", "error"),
    [
        (
            "examples/image-enhancer/xr.yaml",
            None,
            "the XRD defines kind 'AsyncActor', not the XR's 'XAsyncActor'",
        ),
        (
            "examples/v2/image-enhancer/xr.yaml",
            "Cluster",
            "the XRD's scope is Cluster: XR 'image-enhancer' cannot have a metadata.namespace "
            "('production')",
        ),
    ],
    ids=["another kind", "another scope"],
)
def test_an_xrd_that_cannot_define_the_xr_is_an_error(
    tmp_path: Path, xr: str, scope: str | None, error: str
) -> None:
    xrd = yaml.safe_load((support.ROOT / "xrd" / "asyncactors.asya.sh.v2.yaml").read_text())
    if scope:
        xrd["spec"]["scope"] = scope
    (tmp_path / "xrd.yaml").write_text(yaml.safe_dump(xrd))
    result = support.render_cli(
        str(support.ROOT / xr),
        str(support.ROOT / "examples" / "composition.yaml"),
        str(support.ROOT / "examples" / "functions.yaml"),
        "--xrd",
        str(tmp_path / "xrd.yaml"),
    )
    assert result.returncode == 1
    assert error in result.stderr


def test_a_legacy_xr_lists_the_condition_types_its_claim_shows() -> None:
    # Crossplane's reconciler records, on a v1-form XR, each function condition aimed at
    # the claim too, first seen first (status.claimConditionTypes); the real CLI prints it.
    result = support.render_cli(
        "examples/text-processor/xr.yaml",
        "examples/composition.yaml",
        "examples/functions.yaml",
        "--xrd",
        "xrd/xasyncactors.asya.sh.yaml",
        "-e",
        "examples/platform",
        cwd=support.ROOT,
    )
    assert result.returncode == 0, result.stderr
    xr = next(yaml.safe_load_all(result.stdout))
    assert xr["status"]["claimConditionTypes"] == [
        "FlavorsResolved",
        "QueueReady",
        "AutoscalerReady",
        "WorkloadAvailable",
    ]
