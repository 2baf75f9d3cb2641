"""Everything the sandboxed child sees: this folder is bound read-only into every sandbox, and nothing else
of the package is.  Its modules import only the standard library (and NumPy, when a value needs it), and
each other by bare name inside the sandbox (the folder is on the child's ``sys.path``).
"""
