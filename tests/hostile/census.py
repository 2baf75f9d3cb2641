'''What a child can leave behind: the census a sandboxed child takes of every place it can write, and the
look a later child of another student takes for it (``tests/test_census.py`` runs both).

``LEAVE`` walks the whole visible tree and tries to create a file named :data:`TOKEN` in every directory,
then tries every kernel object namespace it can reach: keyrings (each special keyring, a key of its own),
SysV shared memory, semaphores and message queues, a POSIX message queue, POSIX shared memory, a memfd
and an abstract unix socket.  ``LOOK`` searches for all of it.  Both set ``probe`` to what they found.
'''

TOKEN = "rm-hostile-census"
KEY = 0x5E1CE

COMMON = f'''
import ctypes, os, platform, socket
TOKEN, KEY = {TOKEN!r}, {KEY}
libc = ctypes.CDLL(None, use_errno=True)
NUMBERS = {{"x86_64": {{"add_key": 248, "request_key": 249, "keyctl": 250}},
           "aarch64": {{"add_key": 217, "request_key": 218, "keyctl": 219}}}}[platform.machine()]
KEYRINGS = {{"thread": -1, "process": -2, "session": -3, "user": -4, "user-session": -5}}
def call(name, *args):
    return libc.syscall(NUMBERS[name], *args)
def lines(path):
    try:
        with open(path) as fh:
            return fh.readlines()
    except OSError:  # /proc/keys is masked
        return []
def walk():
    for folder, dirs, files in os.walk("/"):
        if folder == "/proc":  # the processes' own folders: nothing can be created there, and they come and go
            dirs[:] = [d for d in dirs if not d.isdigit() and d not in ("self", "thread-self")]
        yield folder, files
'''

LEAVE = COMMON + '''
dirs = []
for folder, _ in walk():
    try:
        fd = os.open(os.path.join(folder, TOKEN), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except OSError:
        continue
    os.write(fd, b"rm-hostile census")
    os.close(fd)
    dirs.append(folder)
made = {}
for name, ring in KEYRINGS.items():
    made["key " + name] = call("add_key", b"user", TOKEN.encode(), b"rm-hostile", 10, ring) >= 0
made["keyring of its own"] = call("keyctl", 0, -4, 1) >= 0 and call("add_key", b"keyring", TOKEN.encode(), None, 0, -4) >= 0
made["sysv shm"] = libc.shmget(KEY, 1 << 20, 0o1666) >= 0
made["sysv sem"] = libc.semget(KEY, 1, 0o1666) >= 0
made["sysv msg"] = libc.msgget(KEY, 0o1666) >= 0
made["posix mqueue"] = libc.mq_open(b"/" + TOKEN.encode(), os.O_CREAT | os.O_RDWR, 0o666, None) >= 0
made["posix shm"] = libc.shm_open(b"/" + TOKEN.encode() + b"-shm", os.O_CREAT | os.O_RDWR, 0o666) >= 0
try:
    os.memfd_create(TOKEN)
    made["memfd"] = True
except OSError:
    made["memfd"] = False
held = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    held.bind("\\0" + TOKEN)
    held.listen(1)
    made["abstract socket"] = True
except OSError:
    made["abstract socket"] = False
probe = {"dirs": dirs, "made": made}
'''

LOOK = COMMON + '''
found = [os.path.join(folder, name) for folder, files in walk() for name in files if name.startswith(TOKEN)]
keys = [line for line in lines("/proc/keys") + lines("/proc/key-users") if TOKEN in line]
for name, ring in KEYRINGS.items():
    if call("keyctl", 10, ring, b"user", TOKEN.encode(), 0) >= 0:  # KEYCTL_SEARCH
        keys.append(name)
if call("request_key", b"user", TOKEN.encode(), None, 0) >= 0:
    keys.append("request_key")
sysv = [kind for kind, get in (("shm", lambda: libc.shmget(KEY, 0, 0)), ("sem", lambda: libc.semget(KEY, 0, 0)),
                               ("msg", lambda: libc.msgget(KEY, 0))) if get() >= 0]
sysv += [line for kind in ("shm", "sem", "msg") for line in lines(f"/proc/sysvipc/{kind}")[1:]]
mqueue = libc.mq_open(b"/" + TOKEN.encode(), os.O_RDONLY, 0, None) >= 0
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
    try:
        s.connect("\\0" + TOKEN)
        abstract = True
    except OSError:
        abstract = False
abstract = abstract or any(TOKEN in line for line in lines("/proc/net/unix"))
probe = {"files": found, "keys": keys, "sysv": sysv, "mqueue": mqueue, "abstract": abstract}
'''
