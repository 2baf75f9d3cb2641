"""reading-maths: auto-graded exercises for *Reading the maths in papers*."""

import sys

# jsonschema (imported by nbformat) loads ``rfc3987_syntax`` when it is installed, as JupyterLab's
# dependencies make it; that module builds a parser grammar taking seconds at import.  None of the
# validation done here checks IRI formats, so every process that grades skips it.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]  # None: "cannot be imported"
