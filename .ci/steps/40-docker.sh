#!/usr/bin/env bash
# A Docker engine and skill-be's three images, all built from the top-level Dockerfile: the sandbox
# image the code tests run the model's code in (target sandbox), the skill-be image that
# tests/e2e/image/ runs and the GitHub Action hands run, triage and regrade to (target skill-be), and
# the verify image the action starts (target verify; no agent CLIs; its layers below skill-be's own
# are the full image's). No image registry is reachable
# from CI: the base image is built from Debian's mirrors with debootstrap and `docker import`.
# Idempotent: an engine that answers is reused, and so is an image whose label holds the hash of
# what went into it (the base image's id and the files the build copies). Any failure stops CI with
# the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

BASE_IMAGE="skill-be-base:bookworm"
VERSION="$(python -c 'import skill_be; print(skill_be.__version__)')"
SANDBOX_IMAGE="skill-be-sandbox:${VERSION}"
SKILL_BE_IMAGE="skill-be:${VERSION}"
VERIFY_IMAGE="skill-be-verify:${VERSION}"
DOCKERD_LOG="${TMPDIR:-/tmp}/skill-be-dockerd.log"

fail() {
  echo "40-docker: $*" >&2
  exit 1
}

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if [ "${#need[@]}" -gt 0 ]; then
  echo "installing ${need[*]}"
  apt-get update -qq || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null || fail "could not install ${need[*]}"
fi

if ! docker info >/dev/null 2>&1; then
  echo "starting dockerd (log: ${DOCKERD_LOG})"
  nohup dockerd >"${DOCKERD_LOG}" 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  if ! docker info >/dev/null 2>&1; then
    tail -n 40 "${DOCKERD_LOG}" >&2 || true
    fail "dockerd did not answer within 60 s"
  fi
fi
docker version --format 'docker engine {{.Server.Version}}'

# The base stands in for debian:bookworm-slim, the Dockerfile's default: a minbase root without
# manuals, docs (but their copyright files) or translations, with dpkg told to leave them out of later
# installs too (docker/dpkg-slim.cfg). Its label names this recipe: a new recipe rebuilds it.
BASE_RECIPE="minbase-slim-1"
have_recipe="$(docker image inspect -f '{{ index .Config.Labels "skill-be.base" }}' "${BASE_IMAGE}" 2>/dev/null || true)"
if [ "${have_recipe}" != "${BASE_RECIPE}" ]; then
  echo "building ${BASE_IMAGE} with debootstrap"
  rootfs="$(mktemp -d)"
  trap 'rm -rf "${rootfs}"' EXIT
  debootstrap --variant=minbase bookworm "${rootfs}" http://deb.debian.org/debian >/dev/null ||
    fail "debootstrap of bookworm failed"
  rm -rf "${rootfs}"/usr/share/man/* "${rootfs}"/usr/share/info/* "${rootfs}"/usr/share/locale/*
  find "${rootfs}/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
  cp docker/dpkg-slim.cfg "${rootfs}/etc/dpkg/dpkg.cfg.d/skill-be-slim"
  tar -C "${rootfs}" --exclude='./var/cache/apt/archives/*.deb' --exclude='./var/lib/apt/lists/*' -c . |
    docker import -c "LABEL skill-be.base=${BASE_RECIPE}" - "${BASE_IMAGE}" >/dev/null ||
    fail "docker import of the bookworm root failed"
  rm -rf "${rootfs}"
  trap - EXIT
fi

# What goes into each image: the base image, and the files of the build context that its stages
# copy (the same list as .dockerignore lets through).
files_hash() {
  find "$@" -type f ! -path '*/__pycache__/*' ! -name '*.pyc' ! -path 'src/*.egg-info/*' -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-64
}
base_id="$(docker image inspect -f '{{.Id}}' "${BASE_IMAGE}")"
sandbox_hash="$(printf '%s %s\n' "${base_id}" "$(files_hash Dockerfile docker/with-ca.sh)" | sha256sum | cut -c1-64)"
skill_be_hash="$(printf '%s %s\n' "${base_id}" "$(files_hash Dockerfile .dockerignore entrypoint.sh docker \
  .ci/agent-clis.txt pyproject.toml README.md src)" | sha256sum | cut -c1-64)"
verify_hash="$(printf '%s %s\n' "${base_id}" "$(files_hash Dockerfile .dockerignore entrypoint.sh docker \
  pyproject.toml README.md src)" | sha256sum | cut -c1-64)"

# This machine's network intercepts HTTPS: its CA certificates go in through the build argument,
# for the downloads only (CI only; the Dockerfile's default is none).
extra_ca=""
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  extra_ca="$(cat /usr/local/share/ca-certificates/*.crt)"
fi

build() { # target image hash [more build arguments]
  local target="$1" image="$2" want="$3" have log
  shift 3
  have="$(docker image inspect -f '{{ index .Config.Labels "skill-be.inputs" }}' "${image}" 2>/dev/null || true)"
  if [ "${have}" = "${want}" ]; then
    echo "${image} is up to date"
    return
  fi
  echo "building ${image} (target ${target})"
  log="$(mktemp)"
  if ! docker build --force-rm \
    --build-arg "BASE=${BASE_IMAGE}" \
    --build-arg "EXTRA_CA_CERTS=${extra_ca}" \
    --build-arg "SKILL_BE_VERSION=${VERSION}" \
    --label "skill-be.inputs=${want}" \
    "$@" \
    --target "${target}" -t "${image}" . >"${log}" 2>&1; then
    tail -n 60 "${log}" >&2
    rm -f "${log}"
    fail "docker build of ${image} failed"
  fi
  rm -f "${log}"
}
build sandbox "${SANDBOX_IMAGE}" "${sandbox_hash}"
build skill-be "${SKILL_BE_IMAGE}" "${skill_be_hash}"
# The verify image hands run, triage and regrade to the full image: here, the one just built.
build verify "${VERIFY_IMAGE}" "${verify_hash}" --build-arg "FULL_IMAGE=${SKILL_BE_IMAGE}"

docker run --rm --network none --read-only --user 65534:65534 "${SANDBOX_IMAGE}" node --version >/dev/null ||
  fail "${SANDBOX_IMAGE} does not run node"
docker run --rm --network none --read-only --user 65534:65534 "${SANDBOX_IMAGE}" python3 --version >/dev/null ||
  fail "${SANDBOX_IMAGE} does not run python3"
echo "sandbox image ${SANDBOX_IMAGE} ready"
docker run --rm --network none "${SKILL_BE_IMAGE}" --version >/dev/null ||
  fail "${SKILL_BE_IMAGE} does not run skill-be --version"
echo "skill-be image ${SKILL_BE_IMAGE} ready"
docker run --rm --network none "${VERIFY_IMAGE}" --version >/dev/null ||
  fail "${VERIFY_IMAGE} does not run skill-be --version"
echo "verify image ${VERIFY_IMAGE} ready"
