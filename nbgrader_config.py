"""nbgrader configuration for the reading-maths course (run nbgrader from this folder)."""

import os
from pathlib import Path

c = get_config()  # noqa: F821 - provided by nbgrader

# nbgrader runs `alembic` (the gradebook's migrations) by name: look for it beside this Python first, so that
# `.venv/bin/nbgrader` works without activating the virtual environment.
from reading_maths.nbgrader.environment import use_nbgrader_env  # noqa: E402

use_nbgrader_env()

HERE = Path(__file__).resolve().parent

c.CourseDirectory.course_id = "reading-maths"
c.CourseDirectory.root = str(HERE)
# The gradebook: SQLite, in the course folder. Where several machines write it (a cluster), PostgreSQL instead:
#     c.CourseDirectory.db_url = "postgresql+psycopg://grader@db.example.org/gradebook"
# (its password in the instructor's ~/.pgpass, not here; docs/cluster.md).
c.CourseDirectory.db_url = f"sqlite:///{HERE / 'gradebook.db'}"

# Where students and the instructor meet: "folder", nbgrader's exchange folder (this machine, or a hub's shared
# folder), or "service", the hub's exchange service over HTTP, for a hub whose servers share no disk
# (Kubernetes; docs/exchange.md). The hub reads this line to start the service.
c.CourseExchange.kind = "folder"

# nbgrader's default exchange is under /usr/local/share and needs root: keep it inside the course,
# unless a multi-user server gives the class a shared one (hub/: JupyterHub sets READING_MATHS_EXCHANGE).
EXCHANGE = Path(os.environ.get("READING_MATHS_EXCHANGE") or HERE / "exchange")
c.Exchange.root = str(EXCHANGE)
c.Exchange.path_includes_course = True
if c.CourseExchange.kind == "folder":
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

# --- This term ---------------------------------------------------------------------------------------
# When each assignment is due: `reading-maths release` writes these into the gradebook, where collect,
# autograde, formgrader and the late policy read them. Times without a zone are UTC.
c.Term.due_dates = {
    "notation": "2027-01-22 17:00:00 Europe/London",
    "matching": "2027-01-29 17:00:00 Europe/London",
    "proofs": "2027-02-05 17:00:00 Europe/London",
    "code": "2027-02-12 17:00:00 Europe/London",
    "build": "2027-02-26 17:00:00 Europe/London",
}
# Late work loses 10 % of its score per started day (reading_maths/nbgrader/late.py); delete this line
# for no penalty (nbgrader's default), or name another nbgrader LateSubmissionPlugin.
c.AssignLatePenalties.plugin_class = "reading_maths.nbgrader.late.TenPercentPerDay"

# generate_feedback: the course's feedback page (reading_maths/nbgrader/feedback.py): formulas as MathML, which
# the browser typesets offline, each message once, the questions named, the read-only course code folded.
from reading_maths.nbgrader.feedback import configure as student_feedback  # noqa: E402

student_feedback(c)

# Formgrader's manual-grading page and generate_feedback show a student's notebook as inert HTML: no script,
# handler, frame, style or outside request from anything the student wrote, formulas still typeset
# (reading_maths/nbgrader/inert.py).
from reading_maths.nbgrader.inert import configure as inert_submissions  # noqa: E402

inert_submissions(c)

# `nbgrader collect` (and formgrader's Collect button) and `zip_collect` take only what a student can prove is
# theirs: inbound entries owned by the student they name, no future timestamps, no links, hard links, FIFOs
# or devices, files copied without following links (reading_maths/nbgrader/exchange.py).
# With the exchange service, every exchange step goes through it (reading_maths/nbgrader/served.py) and collect
# keeps the same guarantees: the service's user and clock, no names leaving the submission's folder.
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
# Canvas gives no submission time: each notebook's timestamp.txt says the due date, one second past it
# for a LATE_ file (reading_maths/nbgrader/lms.py), so the late policy above applies to LMS work too.
# (For Moodle's "Full Name_12345_assignsubmission_file_code.ipynb" set LmsFileNames.named_regexp to
#  r"^(?:.*/)?(?P<student_id>[^/_]+?)_\d+_assignsubmission_file_(?P<file_id>[^/]+?)\.ipynb$", ids from the names.)
# LmsFileNames is exchange.SafeFileNameCollector (it refuses links, hard links, FIFOs and devices) plus the timestamp.
c.ZipCollectApp.collector_plugin = "reading_maths.nbgrader.lms.LmsFileNames"
c.LmsFileNames.valid_ext = [".ipynb"]

# --- Every Autograde is sandboxed ----------------------------------------------------------------------
# `nbgrader autograde` and formgrader's Autograde button grade each submitted notebook with the same
# sandboxed engine as `reading-maths autograde` and inject its results in place of nbgrader's Execute:
# the hidden test cells never run in the student's kernel. (`route_autograde(c, sandboxed=False)` after
# this line would give back nbgrader's stock kernel execution.)
from reading_maths.nbgrader.sandboxed import route_autograde  # noqa: E402

route_autograde(c)
c.GradeInSandbox.timeout = 30
c.GradeInSandbox.budget = 300  # seconds for one notebook's whole grading; the questions left then get 0
