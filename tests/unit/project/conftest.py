from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.project.projectdir import ProjectDir


@pytest.fixture
def project(tmp_path: Path) -> ProjectDir:
    return ProjectDir(tmp_path / "project")
