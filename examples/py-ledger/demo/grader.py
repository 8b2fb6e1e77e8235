"""The demo's grader. The scenario has code tests and no criteria, so skill-be never calls it; the
config names one all the same, as every config does."""

import sys

sys.stdin.read()
print("VERDICTS:")
