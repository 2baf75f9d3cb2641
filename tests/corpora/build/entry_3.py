"""entry_3: graded as entry_1 is (the same cases, another seed), so it keeps entry_1's corpus, moved to entry 3."""

import runpy
from pathlib import Path

RIGHT, WRONG = runpy.run_path(str(Path(__file__).with_name("entry_1.py")))["moved"](3)
