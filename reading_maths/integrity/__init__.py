"""Similar answers between students, as evidence for the instructor: ``reading-maths integrity ASSIGNMENT``.

Steps, each a module: :mod:`~reading_maths.integrity.answers` reads each submission's answer cells (and a "Build
this" entry's code, equation and example) and what every answer is given (templates, helper cells);
:mod:`~reading_maths.integrity.fingerprints` compares every pair with copydetect's winnowed fingerprints;
:mod:`~reading_maths.integrity.evidence` adds each student's checks history and submission time;
:mod:`~reading_maths.integrity.pages` writes the ranked list and a side-by-side page per pair, inert;
:mod:`~reading_maths.integrity.run` ties them together.
"""
