#!/bin/sh
# The skill-be image's ENTRYPOINT. With no argument it prints skill-be's help. Otherwise it hands the
# arguments to docker/launch.py (installed as /usr/local/lib/skill-be/launch.py), which checks the
# mounted project and then replaces itself with `skill-be "$@"` (exec: skill-be gets the signals
# `docker run` and `docker stop` send, and its exit code is the container's). Only when it runs as
# root in a folder that someone else owns does it keep running, as skill-be's parent, to forward the
# signals and then hand the files skill-be created to that folder's owner.
set -eu
if [ "$#" -eq 0 ]; then
  exec skill-be --help
fi
# -I -S: the launcher needs only the standard library; no site-packages scan on the way in.
exec /opt/skill-be/bin/python -I -S /usr/local/lib/skill-be/launch.py "$@"
