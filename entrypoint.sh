#!/bin/sh
# The skill-be image's ENTRYPOINT. With no argument it prints skill-be's help. Otherwise it hands the
# arguments to docker/launch.py (installed as /usr/local/lib/skill-be/launch.py), which checks the
# mounted project, runs `skill-be "$@"` with the signals `docker run` and `docker stop` send passed
# on to it, exits with its code, and, running as root in a folder that another user owns, gives the
# files skill-be wrote there to that user. See launch.py for why it forwards instead of exec.
set -eu
if [ "$#" -eq 0 ]; then
  exec skill-be --help
fi
# -I -S: the launcher needs only the standard library; no site-packages scan on the way in.
exec /opt/skill-be/bin/python -I -S /usr/local/lib/skill-be/launch.py "$@"
