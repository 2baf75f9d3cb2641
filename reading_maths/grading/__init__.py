"""Grading a notebook on the trusted side: the pipeline (engine), grader files (graderfile), many notebooks at once (batch)."""
