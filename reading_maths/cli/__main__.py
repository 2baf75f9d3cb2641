"""``python -m reading_maths.cli``: the ``reading-maths`` command."""

from reading_maths.cli import main

main()
