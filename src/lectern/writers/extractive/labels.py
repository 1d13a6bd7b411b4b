"""The labels that say what a unit is in its passage (a solution, a stated problem), and how long a
lead-in is when it says something of its own.
"""

from __future__ import annotations

import re

TELLING_LEAD_IN_WORDS = 6  # a lead-in this long says something of its own
_SOLUTION = re.compile(r"^(solution|fix|workaround|resolution|answer)s?\b", re.IGNORECASE)
# ... and says what it is ("Solution: spawn above ground level:", not a bare "Solution:")
_STATED_SOLUTION = re.compile(_SOLUTION.pattern + r"\s*:\s*\w", re.IGNORECASE)
# A unit that states a problem ("Issue: Grasp attempts fail repeatedly", "Problem: ..."): its fix may
# come after a list of causes, before the next problem of the same passage.
_ISSUE = re.compile(r"^(issue|problem|error|symptom|challenge|bug)s?\s*:", re.IGNORECASE)
