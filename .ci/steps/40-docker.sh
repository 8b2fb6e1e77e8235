#!/usr/bin/env bash
# A Docker engine and the sandbox image that the code-test sandbox tests run the model's code in.
# No image registry is reachable from CI: the base image is built from Debian's mirrors with
# debootstrap and `docker import`, then docker/sandbox/Dockerfile adds Node 22. Idempotent: an engine
# that answers, and images that already exist (the sandbox image with this Dockerfile's hash), are
# reused. Any failure stops CI with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

BASE_IMAGE="skill-be-base:bookworm"
VERSION="$(python -c 'import skill_be; print(skill_be.__version__)')"
SANDBOX_IMAGE="skill-be-sandbox:${VERSION}"
DOCKERFILE="docker/sandbox/Dockerfile"
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

if ! docker image inspect "${BASE_IMAGE}" >/dev/null 2>&1; then
  echo "building ${BASE_IMAGE} with debootstrap"
  rootfs="$(mktemp -d)"
  trap 'rm -rf "${rootfs}"' EXIT
  debootstrap --variant=minbase bookworm "${rootfs}" http://deb.debian.org/debian >/dev/null ||
    fail "debootstrap of bookworm failed"
  tar -C "${rootfs}" --exclude='./var/cache/apt/archives/*.deb' --exclude='./var/lib/apt/lists/*' -c . |
    docker import - "${BASE_IMAGE}" >/dev/null || fail "docker import of the bookworm root failed"
  rm -rf "${rootfs}"
  trap - EXIT
fi

# The image is rebuilt when the Dockerfile changes: its hash is a label of the image.
want="$(sha256sum "${DOCKERFILE}" | cut -c1-64)"
have="$(docker image inspect -f '{{ index .Config.Labels "skill-be.dockerfile" }}' "${SANDBOX_IMAGE}" 2>/dev/null || true)"
if [ "${have}" != "${want}" ]; then
  echo "building ${SANDBOX_IMAGE}"
  # This machine's network intercepts HTTPS: its CA certificates go in through the build argument,
  # for the download only (CI only; the Dockerfile's default is none).
  extra_ca=""
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    extra_ca="$(cat /usr/local/share/ca-certificates/*.crt)"
  fi
  docker build --force-rm -q \
    --build-arg "BASE=${BASE_IMAGE}" \
    --build-arg "EXTRA_CA_CERTS=${extra_ca}" \
    --label "skill-be.dockerfile=${want}" \
    -t "${SANDBOX_IMAGE}" -f "${DOCKERFILE}" docker/sandbox >/dev/null ||
    fail "docker build of ${SANDBOX_IMAGE} failed (run it without -q to see why)"
fi
docker run --rm --network none --read-only --user 65534:65534 "${SANDBOX_IMAGE}" node --version >/dev/null ||
  fail "${SANDBOX_IMAGE} does not run node"
echo "sandbox image ${SANDBOX_IMAGE} ready"
