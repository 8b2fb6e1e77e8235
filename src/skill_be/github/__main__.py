"""`python -m skill_be.github`: the GitHub Action's entrypoint."""

import sys

from skill_be.github.action import main

sys.exit(main())
