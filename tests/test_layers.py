"""The package's layers hold: the contracts in pyproject.toml ([tool.importlinter]), checked by import-linter,
and what the sandboxed child may import at all (only the standard library, NumPy, IPython's input
transformer and its own folder), checked here from the files' syntax, since the child runs them by bare name.
"""

import ast
import subprocess
import sys
from pathlib import Path

from conftest import ROOT
from reading_maths.sandbox.process import INSIDE

CHILD_MAY_IMPORT = {"numpy", "IPython"}
"""Besides the standard library and the folder's own modules: NumPy (arrays on the wire, the grader's
functions that travel as data) and IPython (turning a cell's magics into Python, as a kernel does)."""


def test_the_layer_contracts_hold():
    done = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--config", "pyproject.toml",
                           "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "broken" in done.stdout and " 0 broken" in done.stdout, done.stdout[-2000:]


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: a relative import does not work in the sandbox"
            found.add(node.module)
    return found


def test_the_child_imports_only_the_standard_library_numpy_and_its_own_folder():
    own = {p.stem for p in INSIDE.glob("*.py")}
    for path in INSIDE.glob("*.py"):
        for name in _imports(path):
            top = name.split(".")[0]
            inside = name.startswith("reading_maths.sandbox.inside") or top in own
            assert inside or top in sys.stdlib_module_names or top in CHILD_MAY_IMPORT, f"{path.name} imports {name}"
