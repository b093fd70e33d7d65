# The two commands of the quick start are `make render` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

EXAMPLE_XR ?= examples/image-enhancer/xr.yaml
COMPOSITION ?= examples/composition.yaml
FUNCTIONS ?= examples/functions.yaml
RENDER_FLAGS ?= --required-resources examples/flavors --required-resources examples/platform --observed-resources examples/image-enhancer/observed/ready.yaml

.PHONY: render test test-fast test-sanitize lint typecheck pytest generate serve package clean bench bench-tools soak e2e-tools e2e

# Installing says nothing on stdout (`make render > actor.yaml` is YAML on the first run too).
$(BIN)/python:
	@echo "creating $(VENV)" >&2
	@$(PYTHON) -m venv $(VENV) >&2
	@$(BIN)/python -m pip install --quiet --upgrade pip >&2

# The install builds the C encoder in place: editing it (or the build) installs again.
BUILD_INPUTS := pyproject.toml setup.py function/codec/_structwire.c

# pip --quiet hides setuptools' warning when the optional C encoder cannot be built.
CODEC_CHECK := $(BIN)/python -c "import sys; from function.codec import structs; structs.accelerated() or print('note: the C Struct encoder was not built (no C compiler or Python headers: gcc, python3-dev); function-asya uses protobuf\'s API instead, with the same answers, more slowly', file=sys.stderr)"

$(STAMP): $(BUILD_INPUTS) | $(BIN)/python
	@echo "installing function-asya into $(VENV)" >&2
	@$(BIN)/python -m pip install --quiet -e . >&2
	@$(CODEC_CHECK)
	@touch $@

$(DEV_STAMP): $(BUILD_INPUTS) | $(BIN)/python
	@echo "installing function-asya and its test tools into $(VENV)" >&2
	@$(BIN)/python -m pip install --quiet -e '.[dev]' >&2
	@$(CODEC_CHECK)
	@touch $@ $(STAMP)

## Render the example AsyncActor through the function and print the YAML stream.
render: $(STAMP)
	@$(BIN)/function-asya render $(EXAMPLE_XR) $(COMPOSITION) $(FUNCTIONS) $(RENDER_FLAGS)

## Lint, type-check and run the whole test suite (the real-cluster tools are built first, if Go is there).
test: $(DEV_STAMP) e2e-tools lint typecheck pytest

## Build etcd, kube-apiserver, kube-controller-manager, kube-scheduler, Crossplane core, the
## crossplane CLI, KEDA and kwok from Go modules into a per-machine cache, linked into
## .e2e/bin/ (docs/real-cluster.md).
e2e-tools:
	@e2e/build-tools

## Only the real-cluster tests (tests/cluster).
e2e: $(DEV_STAMP) e2e-tools
	$(BIN)/pytest tests/cluster $(PYTEST_ARGS)

lint: $(DEV_STAMP)
	$(BIN)/ruff check function tests bench soak
	$(BIN)/ruff format --check function tests bench soak
	$(BIN)/lint-imports

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

pytest: $(DEV_STAMP)
	$(BIN)/pytest $(PYTEST_ARGS)

## The inner loop: lint, types and every test not marked slow (no subprocesses or sockets).
test-fast: $(DEV_STAMP) lint typecheck
	$(BIN)/pytest -m "not slow" $(PYTEST_ARGS)

## The C codec's tests against a build of it with AddressSanitizer and UBSan (needs gcc and
## python3-dev), made in build/sanitize beside the in-place one, which stays as it is;
## tests/unit/structwire_sanitized.py makes sure that build is the one the tests load.
SANITIZE_DIR := build/sanitize
SANITIZE_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
SANITIZE_TESTS := tests/unit/test_structs.py tests/unit/test_response_cache.py $(wildcard tests/unit/test_structwire_*.py)
PYTHON_INCLUDE = $(shell $(BIN)/python -c "import sysconfig; print(sysconfig.get_paths()['include'])")
EXT_SUFFIX = $(shell $(BIN)/python -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")

test-sanitize: $(DEV_STAMP)
	@command -v gcc >/dev/null || { echo "test-sanitize: no gcc, which builds the codec with its sanitizers (apt-get install gcc)" >&2; exit 1; }
	@test -f "$(PYTHON_INCLUDE)/Python.h" || { echo "test-sanitize: no Python.h in $(PYTHON_INCLUDE) (apt-get install python3-dev)" >&2; exit 1; }
	@case "$$(gcc -print-file-name=libasan.so)" in /*) ;; *) echo "test-sanitize: gcc has no libasan.so (apt-get install gcc, or libasan for it)" >&2; exit 1;; esac
	@mkdir -p $(SANITIZE_DIR)
	gcc $(SANITIZE_CFLAGS) -Wall -Wextra -Wno-unused-parameter -shared -fPIC -I$(PYTHON_INCLUDE) \
		function/codec/_structwire.c -o $(SANITIZE_DIR)/_structwire$(EXT_SUFFIX)
	LD_PRELOAD="$$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 CFLAGS="$(SANITIZE_CFLAGS)" \
		STRUCTWIRE_SANITIZED=$(SANITIZE_DIR)/_structwire$(EXT_SUFFIX) \
		$(BIN)/pytest -p tests.unit.structwire_sanitized -p no:cacheprovider $(SANITIZE_TESTS) $(PYTEST_ARGS)

## Write the files generated from the models: both XRDs (xrd/), the Input's CRD (package/input/)
## and docs/flavors.md's table of how each list merges (from the merge rules); and, once the
## rig's tools are built, docs/status.md's `kubectl get` of each phase, captured from the rig.
generate: $(DEV_STAMP)
	$(BIN)/python -m function.generate
	$(BIN)/python -m tests.cluster.show_phases

## Serve the function for `crossplane render` with examples/functions.yaml.
serve: $(STAMP)
	$(BIN)/function-asya serve --insecure --debug --address 127.0.0.1:9443

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache function/codec/*.so

## Load and faults on loopback: 32 clients for SOAK_SECONDS (60), SIGTERM, cancels, restarts.
soak: $(DEV_STAMP)
	$(BIN)/pytest soak -p no:cacheprovider -s $(PYTEST_ARGS)

## Benchmark function-asya against the SDK's no-op function and against go-templating + auto-ready
## (BENCH_ARGS="--phases sizes" runs one part; see BENCHMARKS.md).
bench: $(DEV_STAMP) e2e-tools bench-tools
	$(BIN)/python -m bench.run $(BENCH_ARGS)

## Build function-go-templating and function-auto-ready, the alternative pipeline the bench
## measures, and Crossplane core v2.4 for its fleet-rig phase, from Go modules into the
## per-machine cache, linked into .e2e/bin/.
bench-tools:
	@e2e/build-tools bench
