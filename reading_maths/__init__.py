"""reading-maths: auto-graded exercises for *Reading the maths in papers*."""
