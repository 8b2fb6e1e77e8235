"""Checks the changelog the agent left, one line per rule (skillgrade's JSON shape on the last line)."""

import json
import re

text = open("CHANGELOG.md", encoding="utf-8").read()
new = text.split("## [1.1.0]")[0]
rules = {
    "has an entry for 1.2.0": "1.2.0" in new,
    "dated Keep a Changelog heading": re.search(r"^## \[1\.2\.0\] - \d{4}-\d{2}-\d{2}$", new, re.M) is not None,
    "the fix is under ### Fixed": re.search(r"^### Fixed\n- \S", new, re.M) is not None,
    "older entries kept": "## [1.1.0] - 2026-11-02" in text,
}
print(json.dumps({"checks": [{"name": k, "passed": v} for k, v in rules.items()]}))
