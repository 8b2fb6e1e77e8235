# skill-be's three images, from one Dockerfile (the legacy builder is enough: no BuildKit features).
#
#   docker build --force-rm -t skill-be:1.0.0 .                                   # the last stage: skill-be
#   docker build --force-rm --target verify -t skill-be-verify:1.0.0 .            # verify and check only
#   docker build --force-rm --target sandbox -t skill-be-sandbox:1.0.0 .          # where code tests run
#
# Build arguments:
#   BASE            the Debian bookworm image every stage starts from (default debian:bookworm-slim;
#                   CI passes one imported with debootstrap, since no registry is reachable there)
#   EXTRA_CA_CERTS  PEM text: the CA certificates of a TLS-intercepting proxy, for the downloads only.
#                   Only the download stages (node, typescript, clis, python) declare it, and
#                   docker/with-ca.sh removes the certificates within the RUN that used them: no
#                   image has them in a layer or in its history.
#   FULL_IMAGE      (verify only) the image the action hands run, triage and regrade to
#                   (src/skill_be/github/handoff.py); default ghcr.io/ngwes/skill-be:<version>
#
# hadolint runs on this file in CI (tests/e2e/image). The one rule it ignores, DL3008 (pin the
# versions of apt packages), is ignored on purpose: bookworm's point releases replace those versions
# on the mirror, and a pinned build would break then; the npm and pip versions are pinned.
#
# The download stages come first; the images only COPY their results. `runtime` holds what verify
# and the full image share (OS packages, Node, TypeScript, skill-be's Python dependencies): both
# start FROM it, so a runner that has one image pulls only the other's own layers. `verify` adds
# skill-be itself; `skill-be` adds ripgrep and the agent CLIs, then skill-be itself, so a source
# change rebuilds only the last layers of each.
ARG BASE=debian:bookworm-slim

# ---- node: Node 22 and npm from the npm registry (bookworm's nodejs is 18) --------------------------
FROM ${BASE} AS node
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
ARG EXTRA_CA_CERTS=""
ARG NODE_VERSION=22.23.5
ARG NODE_SHA1_X64=35b7c965746ab9a90c93fd58361f39dce1ded86a
ARG NODE_SHA1_ARM64=97b7654e4ba0462dd30283f210fef0e98a8aee77
ARG NPM_VERSION=10.9.8
ARG NPM_SHA1=61c71897ecbee5bb1ee17e2fe50ebff07828fa9a
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*
COPY docker/with-ca.sh /usr/local/bin/with-ca
# /out holds exactly what the images copy into /usr/local; it is also installed here, so that the
# stages built on this one can run npm.
# The build machine's architecture picks the package (the release builds linux/amd64 and linux/arm64).
RUN case "$(dpkg --print-architecture)" in \
      amd64) arch=x64; sha1="${NODE_SHA1_X64}" ;; \
      arm64) arch=arm64; sha1="${NODE_SHA1_ARM64}" ;; \
      *) echo "no Node package for $(dpkg --print-architecture)"; exit 1 ;; \
    esac \
    && mkdir -p /out/bin /out/lib/node_modules/npm \
    && with-ca curl -fsSL -o /tmp/node.tgz "https://registry.npmjs.org/node-linux-${arch}/-/node-linux-${arch}-${NODE_VERSION}.tgz" \
    && echo "${sha1}  /tmp/node.tgz" | sha1sum -c - \
    && tar -xzf /tmp/node.tgz -C /out/bin --strip-components=2 package/bin/node \
    && with-ca curl -fsSL -o /tmp/npm.tgz "https://registry.npmjs.org/npm/-/npm-${NPM_VERSION}.tgz" \
    && echo "${NPM_SHA1}  /tmp/npm.tgz" | sha1sum -c - \
    && tar -xzf /tmp/npm.tgz -C /out/lib/node_modules/npm --strip-components=1 \
    && ln -s ../lib/node_modules/npm/bin/npm-cli.js /out/bin/npm \
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js /out/bin/npx \
    && rm -f /tmp/node.tgz /tmp/npm.tgz \
    && cp -a /out/. /usr/local/ \
    && node --version && npm --version

# ---- sandbox: where skill-be's Docker sandbox runs the model's code: Debian bookworm, Node 22, Python 3 ----
# skill-be copies its harness, the compiled tests, the installed packages and each answer into the
# container through the Docker API, so the image carries no skill-be code (and no npm).
FROM ${BASE} AS sandbox
ARG SKILL_BE_VERSION=1.0.0
# Python for the Python code tests: bookworm's 3.11 (skill-be brings its harness and pytest with each run).
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=node /out/bin/node /usr/local/bin/node
LABEL org.opencontainers.image.title="skill-be sandbox" \
      org.opencontainers.image.description="Runs the model's code against the code tests of skill-be" \
      org.opencontainers.image.source="https://github.com/ngwes/skill-be" \
      org.opencontainers.image.version="${SKILL_BE_VERSION}" \
      org.opencontainers.image.licenses="MIT"
# skill-be starts containers with --user 65534:65534, a read-only root and no network; these only
# make a manual `docker run` of the image behave the same way.
USER 65534:65534
WORKDIR /work
CMD ["node", "--version"]

# ---- typescript: skill-be's pinned TypeScript, laid out as its cache (checks/typescript.py) --------
FROM node AS typescript
ARG EXTRA_CA_CERTS=""
# Must equal PINNED_VERSION in src/skill_be/checks/typescript.py (tests/e2e/image checks it).
ARG TYPESCRIPT_VERSION=6.0.3
RUN d="/ts/typescript-${TYPESCRIPT_VERSION}" \
    && mkdir -p "$d" \
    && echo '{"private": true}' > "$d/package.json" \
    && with-ca npm install --no-save --no-audit --no-fund --no-package-lock --loglevel=error \
       --prefix "$d" "typescript@${TYPESCRIPT_VERSION}" \
    && echo "${TYPESCRIPT_VERSION}" > "$d/.skill-be-complete" \
    && rm -rf /root/.npm

# ---- clis: the agent CLIs at the versions of .ci/agent-clis.txt (CI reads the same file) -----------
FROM node AS clis
# The same as the node stage's (inherited); said again so that hadolint sees the pipefail.
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
ARG EXTRA_CA_CERTS=""
COPY .ci/agent-clis.txt /tmp/agent-clis.txt
RUN grep -v -e '^#' -e '^[[:space:]]*$' /tmp/agent-clis.txt \
    | xargs with-ca npm install --global --prefix /opt/agent-clis --no-audit --no-fund --loglevel=error \
    && rm -rf /root/.npm \
    && for exe in claude pi opencode codex gemini copilot; do test -x "/opt/agent-clis/bin/$exe"; done
# Copilot CLI is one binary that unpacks its package (about 235 MB) into $XDG_CACHE_HOME/copilot on its
# first start: unpacked once here, every run in skill-be's container shares it read-only
# (src/skill_be/adapters/copilot_cli.py IMAGE_CACHE) instead of unpacking it again.
RUN mkdir -p /tmp/copilot-home \
    && HOME=/tmp/copilot-home COPILOT_OFFLINE=true XDG_CACHE_HOME=/opt/agent-clis/copilot-cache \
       /opt/agent-clis/bin/copilot --version \
    && test -f /opt/agent-clis/copilot-cache/copilot/pkg/linux-*/*/.extraction-complete \
    && rm -rf /tmp/copilot-home \
    && chmod -R a+rX,go-w /opt/agent-clis/copilot-cache

# ---- python: a venv with skill-be's dependencies, and skill-be's wheel -----------------------------
FROM ${BASE} AS python
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
ARG EXTRA_CA_CERTS=""
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*
COPY docker/with-ca.sh /usr/local/bin/with-ca
COPY docker/requirements.py pyproject.toml /tmp/build/
# The dependencies alone first (from pyproject.toml), so a source change does not reinstall them; and
# mypy, at the version of the dev extra, for the python typecheck preset (`mypy: true`). Not
# setuptools: nothing runs it (pip wheel below brings its own).
RUN python3 -m venv /opt/skill-be \
    && python3 /tmp/build/requirements.py /tmp/build/pyproject.toml mypy > /tmp/build/requirements.txt \
    && with-ca /opt/skill-be/bin/pip install --no-cache-dir --disable-pip-version-check -r /tmp/build/requirements.txt \
    && /opt/skill-be/bin/pip uninstall -y -q setuptools
COPY README.md /tmp/build/
COPY src /tmp/build/src
RUN with-ca /opt/skill-be/bin/pip wheel --no-cache-dir --disable-pip-version-check --no-deps -w /wheels /tmp/build

# ---- runtime: what verify and skill-be share: git, Python, Node 22 (no npm), TypeScript, the dependencies
FROM ${BASE} AS runtime
# No manuals, docs or translations from these packages (as debian:bookworm-slim does), and no apt
# caches: about 120 MB less.
COPY docker/dpkg-slim.cfg /etc/dpkg/dpkg.cfg.d/skill-be-slim
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates git python3 \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
# Node alone: nothing verify or check runs needs npm (skill-be's TypeScript is installed below).
COPY --from=node /out/bin/node /usr/local/bin/node
COPY --from=typescript /ts/ /usr/local/share/skill-be/
COPY --from=python /opt/skill-be/ /opt/skill-be/
COPY docker/launch.py /usr/local/lib/skill-be/launch.py
COPY entrypoint.sh /usr/local/bin/skill-be-entrypoint
# SKILL_BE_CACHE is where skill-be looks for its own TypeScript: installed above, so no first-use
# download. No .pyc files from skill-be's root into the user's mounted project.
ENV PATH="/opt/skill-be/bin:${PATH}" \
    SKILL_BE_CACHE=/usr/local/share/skill-be \
    PYTHONDONTWRITEBYTECODE=1

# ---- verify: skill-be without the agent CLIs, for verify, check, merge and the action's publish -----
# The action starts this image for every command; run, triage and regrade it hands to a sibling
# container of FULL_IMAGE (src/skill_be/github/handoff.py). No USER and no WORKDIR (see skill-be's).
FROM runtime AS verify
ARG SKILL_BE_VERSION=1.0.0
ARG FULL_IMAGE=ghcr.io/ngwes/skill-be:${SKILL_BE_VERSION}
COPY --from=python /wheels/ /tmp/wheels/
# The wheel was built from this build's source in the python stage; no index is asked here.
RUN /opt/skill-be/bin/pip install --no-deps --no-index --disable-pip-version-check --no-compile /tmp/wheels/*.whl \
    && rm -rf /tmp/wheels /root/.cache \
    && /opt/skill-be/bin/python -m compileall -q /opt/skill-be/lib/python3.11/site-packages/skill_be
ENV SKILL_BE_FULL_IMAGE="${FULL_IMAGE}"
LABEL org.opencontainers.image.title="skill-be verify" \
      org.opencontainers.image.description="skill-be without the agent CLIs: verify, check and merge (no model call)" \
      org.opencontainers.image.source="https://github.com/ngwes/skill-be" \
      org.opencontainers.image.version="${SKILL_BE_VERSION}" \
      org.opencontainers.image.licenses="MIT"
ENTRYPOINT ["/usr/local/bin/skill-be-entrypoint"]

# ---- skill-be: the command line, Node 22, TypeScript 6, git and the agent CLIs (the default target) -
# No USER and no WORKDIR: a GitHub docker action runs it as root in /github/workspace, and
# `docker run -w /src` picks the folder. docker/launch.py explains who owns the files it writes.
FROM runtime AS skill-be
ARG SKILL_BE_VERSION=1.0.0
# ripgrep: opencode's skill tool needs rg (offline it cannot download one).
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ripgrep \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
# npm, for the code tests' dependencies (codetests/installer.py); Node itself is runtime's.
COPY --from=node /out/lib/node_modules/npm/ /usr/local/lib/node_modules/npm/
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
    && npm --version
COPY --from=clis /opt/agent-clis/ /opt/agent-clis/
COPY --from=python /wheels/ /tmp/wheels/
# The wheel was built from this build's source in the python stage; no index is asked here.
RUN /opt/skill-be/bin/pip install --no-deps --no-index --disable-pip-version-check --no-compile /tmp/wheels/*.whl \
    && rm -rf /tmp/wheels /root/.cache \
    && /opt/skill-be/bin/python -m compileall -q /opt/skill-be/lib/python3.11/site-packages/skill_be
ENV PATH="/opt/skill-be/bin:/opt/agent-clis/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
LABEL org.opencontainers.image.title="skill-be" \
      org.opencontainers.image.description="Benchmarks Agent Skills: baseline versus with-skill, LLM-graded, code-tested and gated." \
      org.opencontainers.image.source="https://github.com/ngwes/skill-be" \
      org.opencontainers.image.version="${SKILL_BE_VERSION}" \
      org.opencontainers.image.licenses="MIT"
ENTRYPOINT ["/usr/local/bin/skill-be-entrypoint"]
