# syntax=docker/dockerfile:1
# One Debian release for both stages: the venv built here must import under
# the runtime's Python (Debian 13 ships Python 3.13 in both images).
ARG DEBIAN_RELEASE=13

FROM debian:${DEBIAN_RELEASE}-slim AS build
# gcc and the Python headers build the C Struct codec (setup.py); the image runs without them.
RUN apt-get update \
 && apt-get install --no-install-recommends --yes python3-venv python3-dev gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
# The venv lives at the same path in both stages, so its scripts keep working.
RUN python3 -m venv /venv/fn && /venv/fn/bin/pip install --no-cache-dir --upgrade pip
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY function ./function
# The codec is optional for a source install, never for the image: fail if it was not built.
RUN /venv/fn/bin/pip install --no-cache-dir . \
 && /venv/fn/bin/python -c "from function.codec import structs; assert structs.accelerated()" \
 && /venv/fn/bin/function-asya serve --help > /dev/null
# kubernetes-validate ships every Kubernetes version's schemas (about 108 MB); the function
# reads one file of them (validate/kube_schemas.py, SCHEMAS). The rest is left out of the
# image, and the schemas are compiled here once, so a build that removed too much fails.
RUN package=$(/venv/fn/bin/python -c "import importlib.util as u; print(u.find_spec('kubernetes_validate').submodule_search_locations[0])") \
 && find "$package/kubernetes-json-schema" -mindepth 1 -maxdepth 1 ! -name v1.36.0-local-strict -exec rm -rf {} + \
 && find "$package/kubernetes-json-schema/v1.36.0-local-strict" -mindepth 1 ! -name _definitions.json -delete \
 && /venv/fn/bin/python -c "from function.validate import kube_schemas; kube_schemas.validator()"

FROM gcr.io/distroless/python3-debian${DEBIAN_RELEASE} AS image
COPY --from=build /venv/fn /venv/fn
EXPOSE 9443
USER nonroot:nonroot
# crossplane render's Docker runtime appends --insecure to these arguments.
ENTRYPOINT ["/venv/fn/bin/function-asya", "serve"]
