"""reading-maths: auto-graded exercises for *Reading the maths in papers*."""

import importlib
import importlib.machinery
import importlib.util
import sys
import types

# jsonschema (imported by nbformat) loads ``rfc3987_syntax`` when it is installed, as JupyterLab's
# dependencies make it; that module builds a parser grammar taking seconds at import.  None of the
# validation done here checks IRI formats, so every process that grades skips it.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]  # None: "cannot be imported"


def _package_body_when_asked(name: str) -> None:
    """Import the package ``name`` without running its ``__init__`` until one of its own names is asked for.

    Otter's ``__init__`` imports its whole API (``otter.run`` with pandas, ``otter.export`` with nbconvert and
    BeautifulSoup, ``otter.check`` with ipywidgets): about 0.6 s of CPU in every process that loads a grader file,
    which needs only ``otter.test_files``.  Its submodules import as usual (``otter.test_files``, ``otter.utils``);
    the first name asked of the package itself (``otter.Notebook``, ``from otter import api``,
    ``otter.__version__``) runs its ``__init__`` then, once, and everything of Otter is there as before.
    """
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    package = importlib.util.module_from_spec(spec)
    loader, locations = spec.loader, list(spec.submodule_search_locations)

    class NotYetRun(types.ModuleType):
        def __getattr__(self, attribute: str) -> object:
            if not attribute.startswith("__") and importlib.machinery.PathFinder.find_spec(f"{name}.{attribute}",
                                                                                           locations):
                return importlib.import_module(f"{name}.{attribute}")  # a submodule (``from otter import api``)
            object.__setattr__(self, "__class__", types.ModuleType)  # a plain module from now on
            loader.exec_module(self)
            return getattr(self, attribute)

    package.__class__ = NotYetRun
    sys.modules[name] = package


_package_body_when_asked("otter")
