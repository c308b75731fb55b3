"""Where the data kept outside the repository is: ``shared/`` beside the checkout, as CI lays it out
(a clone in some folder, a copy of ``shared/`` next to it). The tests that read it skip, saying so,
only when a file truly is not there."""

from __future__ import annotations

from pathlib import Path

# Not resolved: a checkout reached through a symlink still finds the shared/ beside it.
SHARED = Path(__file__).absolute().parents[2] / "shared"
DATA = SHARED / "data"
