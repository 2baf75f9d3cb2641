"""Hidden grader for entry 2 of the build assignment ("Build this"): the cases of reading_maths/kit/build.py,
one point each (the four strength cases hidden), failing with an id of its ``MISTAKES``.

The seed makes the variations of the student's example on which mutants are compared (hidden: never in release/).
"""

from reading_maths.kit import build, course_seed, reference

OK_FORMAT = False
name = "entry_2"

SEED = course_seed(31_415_926)  # hidden: the number and the course's secret, never in release/
REF = reference("build")

WORKED = {"the worked entry (layer norm)": REF.entry_0["equation"]}
MISTAKES = build.MISTAKES  # how a case fails, by the id the report counts

(symbol_table_covers_the_equation, shapes_line_up, example_reproduced, equation_agrees_with_implementation,
 example_is_tiny, test_passes, equation_is_new, test_kills_50_percent_of_mutants, test_kills_70_percent_of_mutants,
 test_kills_85_percent_of_mutants, test_kills_100_percent_of_mutants) = build.entry_cases(2, SEED, WORKED)
