"""Grading on the trusted side: one notebook through its steps (``engine``), grader files
(``graderfile``), many notebooks at once (``batch``)."""
