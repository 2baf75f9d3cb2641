"""Hidden grader for entry 2 of the build assignment ("Build this"): the cases of reading_maths/kit/build.py.

The seed makes the variations of the student's example on which mutants are compared (hidden: never in release/).
"""

from reading_maths.kit import reference
from reading_maths.kit.build import entry_cases

OK_FORMAT = False
name = "entry_2"

SEED = 31_415_926  # hidden: never in release/
REF = reference("build")

globals().update(entry_cases(2, SEED, {"the worked entry (layer norm)": REF.entry_0["equation"]}))
