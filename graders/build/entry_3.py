"""Hidden grader for entry 3 of the build assignment ("Build this"): the cases of reading_maths/kit/build.py.

The seed makes the variations of the student's example on which mutants are compared (hidden: never in release/).
"""

from reading_maths.kit import reference
from reading_maths.kit.build import entry_cases

OK_FORMAT = False
name = "entry_3"

SEED = 14_142_135  # hidden: never in release/
REF = reference("build")

globals().update(entry_cases(3, SEED, {"the worked entry (layer norm)": REF.entry_0["equation"]}))
