"""Notebook idioms: cells as students write them, each graded in IPython's kernel and through the sandbox.

``SAME``: each idiom's cells (code assignment), the names whose presence (and plain values) both must agree
on, and a piece of the sandboxed feedback of the question it touches, when it must say something.
``REFUSED``: idioms grading deliberately does not run, with the message the student sees.
"""

SOFTMAX = '''import numpy as np

def softmax(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''
DEF_ONLY = SOFTMAX.split("\n", 2)[2]
WRONG = "import numpy as np\n\ndef softmax(z, T=1.0):\n    return np.exp(z) / np.sum(np.exp(z))\n"
USES_HELPER = '''import numpy as np

def softmax(z, T=1.0):
    return shifted_exp(np.asarray(z, dtype=float) / T) / shifted_exp(np.asarray(z, dtype=float) / T).sum(
        axis=-1, keepdims=True)
'''
HELPER = "def shifted_exp(z)\n    return np.exp(z - z.max(axis=-1, keepdims=True))\n"  # no colon: a syntax error
LAMBDA = ("softmax = lambda z, T=1.0: (lambda e: e / e.sum(axis=-1, keepdims=True))(np.exp(np.asarray(z, float) / T"
          " - (np.asarray(z, float) / T).max(axis=-1, keepdims=True)))")
PROMPTS = "\n".join(">>> " + line if not line.startswith(" ") else "... " + line for line in SOFTMAX.splitlines())
INDENTED = "\n".join("    " + line for line in SOFTMAX.splitlines())

SAME = {
    "%%time cell": (["%%time\n" + SOFTMAX], ["softmax"], None),
    "%%time cell ending in an expression": (["%%time\n" + SOFTMAX + "softmax([1.0, 2.0])"], ["softmax"], None),
    "%%capture cell": (["%%capture\n" + SOFTMAX + "print(softmax([1, 2]))"], ["softmax"], None),
    "%%capture into a name": (["%%capture out\n" + SOFTMAX + "print('hi')", "out.show()"], ["softmax", "out"], None),
    "%%capture around an error": (["%%capture\n" + SOFTMAX + "raise ValueError('late')"], ["softmax"], None),
    "%%prun cell": (["%%prun -q\n" + SOFTMAX], ["softmax"], None),
    "%%timeit cell keeps nothing": (["import numpy as np", "%%timeit -n1 -r1\n" + DEF_ONLY], ["softmax", "np"],
                                    "`%%timeit` runs its cell inside a function of its own"),
    "%%timeit after the definition": ([SOFTMAX, "%%timeit -n1 -r1 x = np.ones(50)\nsoftmax(x)"], ["softmax", "x"],
                                      None),
    "%timeit line": ([SOFTMAX, "%timeit -n1 -r1 softmax(np.ones(10))"], ["softmax"], None),
    "%time assignment": (["import numpy as np", "%time " + LAMBDA], ["softmax"], None),
    "%time value": (["import numpy as np", "total = %time int(np.sum([1, 2]))", SOFTMAX], ["softmax", "total"], None),
    "%%writefile then import": (["%%writefile mysoftmax.py\n" + SOFTMAX, "from mysoftmax import softmax"],
                                ["softmax"], None),
    "%%writefile -a then import": (["%%writefile parts.py\nimport numpy as np\n", "%%writefile -a parts.py\n"
                                    + DEF_ONLY, "import parts\nsoftmax = parts.softmax"], ["softmax"], None),
    "%%writefile then %run": (["%%writefile helpers.py\n" + SOFTMAX + "ran_as = __name__\n", "%run helpers.py"],
                              ["softmax", "ran_as"], None),
    "setup magics": (["%matplotlib inline\n%load_ext autoreload\n%autoreload 2\n%config InlineBackend.figure_format"
                      " = 'retina'\n%precision 3\n" + SOFTMAX], ["softmax"], None),
    "%pip": (["%pip show numpy\n" + SOFTMAX], ["softmax"], "`%pip` is not run when grading"),
    "shell escapes": (["!echo hello\nfiles = !ls\n" + SOFTMAX], ["softmax", "files"],
                      "`!` shell commands are not run when grading"),
    "%%bash beside Python": (["%%bash\necho hi > made.txt", SOFTMAX], ["softmax"],
                             "`%%bash` is not run when grading"),
    "%%html and %%markdown": (["%%html\n<b>softmax</b>", "%%markdown\n*softmax*", SOFTMAX], ["softmax"], None),
    "help": (["np_sum_help = 1\n" + SOFTMAX + "np.sum?", "softmax??", "?softmax"], ["softmax", "np_sum_help"], None),
    "display": ([SOFTMAX + "display(softmax([1, 2, 3]))", "from IPython.display import display, Markdown\n"
                 "display(Markdown('**done**'))"], ["softmax", "Markdown"], None),
    "get_ipython": (["ip = get_ipython()\nip.run_line_magic('matplotlib', 'inline')\n" + SOFTMAX,
                     "shell = get_ipython().__class__.__name__"], ["softmax", "ip", "shell"], None),
    "main guard": ([SOFTMAX + 'if __name__ == "__main__":\n    print(softmax([1, 2, 3]))\n    checked = True\n'],
                   ["softmax", "checked"], None),
    "input": (["name = input('your name? ')", SOFTMAX], ["softmax", "name"], None),
    "a later cell fixes it": ([WRONG, SOFTMAX], ["softmax"], None),
    "a later cell breaks it": ([SOFTMAX, WRONG], ["softmax"], None),
    "console prompts pasted": ([PROMPTS], ["softmax"], None),
    "an indented cell": ([INDENTED], ["softmax"], None),
    "top-level await": (["import asyncio\nawait asyncio.sleep(0)\n" + SOFTMAX], ["softmax", "asyncio"], None),
    "sys.exit in a cell": (["import sys\n" + SOFTMAX + "sys.exit(0)", "after = 1"], ["softmax", "after"], None),
    "%reset": (["x = 1", "%reset -f", SOFTMAX], ["softmax", "x"], None),
    "%who": (["import numpy as np\n" + SOFTMAX, "%who\n%whos\nnames = %who_ls"], ["softmax", "names"], None),
    "%env": (["%env MY_FLAG=1\nimport os\nflag = os.environ['MY_FLAG']", SOFTMAX], ["softmax", "flag"], None),
    "a module grading lacks": (["import scipy.special\n" + SOFTMAX], ["softmax"],
                               "The grading environment has no `scipy`"),
    "a module grading lacks, in its own cell": (["import numpy as np\nfrom scipy.special import softmax as sps",
                                                 "def softmax(z, T=1.0):\n    return sps(np.asarray(z) / T, axis=-1)"],
                                                ["softmax"], "The grading environment has no `scipy`"),
    "a syntax error in another cell": ([USES_HELPER, HELPER], ["softmax", "shifted_exp"], "SyntaxError"),
    "a helper defined in no cell": ([USES_HELPER], ["softmax"], "`shifted_exp` is not defined in any cell above"),
    "a definition in a Markdown cell": ([], ["softmax"], "which is a Markdown cell"),
}
"""idiom: (cells, names, a piece of the softmax question's sandboxed feedback or None)"""

MARKDOWN = {"a definition in a Markdown cell": "```python\n" + SOFTMAX + "```"}
"""idiom: a Markdown cell the student wrote, put first"""

REFUSED = {
    "%%bash writes a module": (["%%bash\ncat > helpers.py <<'EOF'\n" + SOFTMAX + "EOF", "from helpers import softmax"],
                               "`%%bash` is not run when grading: keep your definitions in plain Python cells."),
}
"""idiom: (cells, the message in the softmax question's sandboxed feedback): IPython's kernel runs what
grading does not (another program), so only the message is required."""
