"""nbgrader configuration for the reading-maths course (run nbgrader from this folder)."""

from pathlib import Path

c = get_config()  # noqa: F821 - provided by nbgrader

HERE = Path(__file__).resolve().parent

c.CourseDirectory.course_id = "reading-maths"
c.CourseDirectory.root = str(HERE)
c.CourseDirectory.db_url = f"sqlite:///{HERE / 'gradebook.db'}"

# nbgrader's default exchange is under /usr/local/share and needs root: keep it inside the course.
c.Exchange.root = str(HERE / "exchange")
c.Exchange.path_includes_course = True

# What replaces the solutions in the students' copies.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# A cell that runs longer than this is stopped (an endless loop costs only its own question).
c.ExecutePreprocessor.timeout = 60
c.ExecutePreprocessor.interrupt_on_timeout = True

# The graders print their feedback; keep nbgrader from truncating it.
c.LimitOutput.max_lines = 200
