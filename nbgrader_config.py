"""nbgrader configuration for the reading-maths course (run nbgrader from this folder)."""

import os
from pathlib import Path

c = get_config()  # noqa: F821 - provided by nbgrader

HERE = Path(__file__).resolve().parent

c.CourseDirectory.course_id = "reading-maths"
c.CourseDirectory.root = str(HERE)
c.CourseDirectory.db_url = f"sqlite:///{HERE / 'gradebook.db'}"

# nbgrader's default exchange is under /usr/local/share and needs root: keep it inside the course,
# unless a multi-user server gives the class a shared one (hub/: JupyterHub sets READING_MATHS_EXCHANGE).
EXCHANGE = Path(os.environ.get("READING_MATHS_EXCHANGE") or HERE / "exchange")
c.Exchange.root = str(EXCHANGE)
c.Exchange.path_includes_course = True
EXCHANGE.mkdir(exist_ok=True)  # formgrader warns when the exchange folder is missing

# Validate runs every cell with tests: the public check cells too, not only the (hidden) grade cells.
c.Validator.validate_all = True

# What replaces the solutions in the students' copies.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# A cell that runs longer than this is stopped (an endless loop costs only its own question).
c.ExecutePreprocessor.timeout = 60
c.ExecutePreprocessor.interrupt_on_timeout = True

# The graders print their feedback; keep nbgrader from truncating it.
c.LimitOutput.max_lines = 200

# generate_feedback: nbgrader's feedback template with MathJax inlined from a package, not a CDN, so the
# formulas in a student's feedback render offline (reading_maths/nbgrader/feedback.py).
from reading_maths.nbgrader.feedback import configure as offline_feedback  # noqa: E402

offline_feedback(c)

# Formgrader's manual-grading page and generate_feedback show a student's notebook as inert HTML: no script,
# handler, frame, style or outside request from anything the student wrote, formulas still typeset
# (reading_maths/nbgrader/inert.py).
from reading_maths.nbgrader.inert import configure as inert_submissions  # noqa: E402

inert_submissions(c)

# `nbgrader collect` (and formgrader's Collect button) and `zip_collect` take only what a student can prove is
# theirs: inbound entries owned by the student they name, no future timestamps, no links, hard links, FIFOs
# or devices, files copied without following links (reading_maths/nbgrader/exchange.py).
from reading_maths.nbgrader.exchange import configure as safe_collect  # noqa: E402

safe_collect(c)

# `nbgrader export`: every field quoted, no cell a spreadsheet would run as a formula
# (reading_maths/reports/spreadsheet.py; `reading-maths report`'s grades.csv is written the same way).
c.ExportApp.plugin_class = "reading_maths.reports.spreadsheet.SafeCsvExport"

# --- LMS downloads: `nbgrader zip_collect ASSIGNMENT` ------------------------------------------------
# Put the LMS's bulk download (zip files or loose notebooks) in downloaded/<assignment>/archive/, then
# `nbgrader zip_collect <assignment>` extracts it and files each notebook as submitted/<student>/<assignment>/.
# Filenames follow Canvas's "Download Submissions" pattern:
#     {login}_[LATE_]{canvas user id}_{submission id}_{original filename}[-{resubmission}].ipynb
#     e.g. lovelaceada_LATE_12345_67890_code-1.ipynb  ->  submitted/lovelaceada/code/code.ipynb
# (For Moodle's "Full Name_12345_assignsubmission_file_code.ipynb" use instead
#  r"^(?:.*/)?(?P<student_id>[^/_]+?)_\d+_assignsubmission_file_(?P<file_id>[^/]+?)\.ipynb$", with ids from the names.)
# reading_maths.nbgrader.exchange.SafeFileNameCollector: nbgrader's FileNameCollectorPlugin refusing links,
# hard links, FIFOs and devices (set with `collect` below).
c.FileNameCollectorPlugin.named_regexp = (
    # nbgrader matches the whole path of each extracted file, hence the leading "(?:.*/)?"
    r"^(?:.*/)?(?P<student_id>[^/_]+)_(?:LATE_|late_)?\d+_\d+_(?P<file_id>[^/]+?)(?:-\d+)?\.ipynb$"
)
c.FileNameCollectorPlugin.valid_ext = [".ipynb"]

# --- Every Autograde is sandboxed ----------------------------------------------------------------------
# `nbgrader autograde` and formgrader's Autograde button grade each submitted notebook with the same
# sandboxed engine as `reading-maths autograde` and inject its results in place of nbgrader's Execute:
# the hidden test cells never run in the student's kernel. (`route_autograde(c, sandboxed=False)` after
# this line would give back nbgrader's stock kernel execution.)
from reading_maths.nbgrader.sandboxed import route_autograde  # noqa: E402

route_autograde(c)
c.GradeInSandbox.timeout = 30
c.GradeInSandbox.budget = 300  # seconds for one notebook's whole grading; the questions left then get 0
