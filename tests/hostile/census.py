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

HOARD_TMPFS = 5 << 28
"""What the nested-namespace attack of :data:`HOARD` tries to hold in a tmpfs of its own (1.25 GiB: more than a
1 GiB sandbox's whole bound on its own)."""
HOARD_DETACHED = 1 << 28
"""And in a tmpfs made with the new mount API and never attached (no mount table lists it)."""

HOARD = f'''
import ctypes, errno, fcntl, os, platform, socket, struct, termios, threading, time
TMPFS, DETACHED, FILE = {HOARD_TMPFS}, {HOARD_DETACHED}, 32 << 20  # FILE: under the file-size rlimit
libc = ctypes.CDLL(None, use_errno=True)
NR = {{"x86_64": dict(clone=56, unshare=272, setns=308, umount2=166, pivot_root=155, userfaultfd=323, bpf=321,
                      perf_event_open=298),
       "aarch64": dict(clone=220, unshare=97, setns=268, umount2=39, pivot_root=41, userfaultfd=282, bpf=280,
                       perf_event_open=241)}}[platform.machine()]
NR.update(open_tree=428, move_mount=429, fsopen=430, fsconfig=431, fsmount=432, fspick=433, mount_setattr=442,
          io_uring_setup=425, clone3=435)
CLONE_NEW = dict(NEWNS=0x20000, NEWCGROUP=0x2000000, NEWUTS=0x4000000, NEWIPC=0x8000000, NEWUSER=0x10000000,
                 NEWPID=0x20000000, NEWNET=0x40000000, NEWTIME=0x80)
def outcome(result):
    return "made" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
def touch(n):
    block = bytearray(n)
    block[::4096] = b"\\1" * len(range(0, n, 4096))
    return block
def fill(fd, goal):
    done, chunk = 0, b"\\1" * (1 << 20)
    while done < goal:
        try:
            done += os.write(fd, chunk[:goal - done])
        except OSError:
            break
    return done
def fill_files(opener, goal):
    """Files of FILE bytes each until goal, or until one is not taken whole; the descriptors kept open."""
    total, fds = 0, []
    while total < goal:
        try:
            fds.append(opener(len(fds)))
        except OSError:
            break
        wanted = min(FILE, goal - total)
        done = fill(fds[-1], wanted)
        total += done
        if done < wanted:
            break
    return total, fds
def retried(start, refused):
    """start(), retried for 3 s while the process limit refuses it (a thread just joined may still count)."""
    for _ in range(30):
        try:
            return start()
        except refused:
            time.sleep(0.1)
    return None
def in_a_child(work, keep=True):
    """work() in a forked child, which reports its result and then keeps what it holds (unless not keep)."""
    r, w = os.pipe()
    pid = retried(os.fork, OSError)
    if pid is None:
        os.close(r); os.close(w)
        return "no fork"
    if pid == 0:
        try:
            result = work()
        except BaseException as exc:
            result = f"{{type(exc).__name__}}: {{exc}}"
        os.write(w, repr(result).encode()); os.close(w)
        if keep:
            time.sleep(600)
        os._exit(0)
    os.close(w)
    text = b""
    while chunk := os.read(r, 65536):
        text += chunk
    os.close(r)
    if not keep:
        os.waitpid(pid, 0)
    return eval(text.decode()) if text else None
probe = {{}}

kept = []
probe["threads"] = 0
for _ in range(2):  # one at a time (the process limit counts threads), each leaving what it touched
    thread = threading.Thread(target=lambda: kept.append(touch(16 << 20)))
    if retried(lambda: thread.start() or True, RuntimeError) is None:  # can't start new thread: the process limit
        break
    thread.join()
    probe["threads"] += 1
import subprocess  # with clone3 answered ENOSYS, glibc falls back to clone: threads, fork and subprocess still work
probe["subprocess"] = retried(lambda: subprocess.run(["/usr/bin/true"]).returncode, OSError)

def every_namespace():
    """unshare, and clone, with each CLONE_NEW* flag (what it made dies with this child)."""
    made = {{}}
    for name, flag in CLONE_NEW.items():
        made["unshare " + name] = outcome(libc.syscall(NR["unshare"], flag))
        if flag != CLONE_NEW["NEWTIME"]:  # clone's low byte is the exit signal
            pid = libc.syscall(NR["clone"], flag | 17, 0, 0, 0, 0)  # | SIGCHLD
            if pid == 0:
                os._exit(0)
            if pid > 0:
                os.waitpid(pid, 0)
            made["clone " + name] = outcome(pid)
    return made
probe["namespaces"] = in_a_child(every_namespace, keep=False)

def own_tmpfs():
    """The hub's attack: a user and mount namespace of its own, a tmpfs of the size it likes, filled; then a
    tmpfs never attached anywhere (fsopen, fsmount), filled through files it keeps open."""
    uid, gid = os.getuid(), os.getgid()
    held = {{"unshare": outcome(libc.syscall(NR["unshare"], CLONE_NEW["NEWUSER"] | CLONE_NEW["NEWNS"]))}}
    if held["unshare"] == "made":
        for name, text in (("setgroups", "deny"), ("uid_map", f"0 {{uid}} 1"), ("gid_map", f"0 {{gid}} 1")):
            with open(f"/proc/self/{{name}}", "w") as fh:
                fh.write(text)
        libc.mount(b"none", b"/", None, (1 << 14) | (1 << 18), None)  # MS_REC | MS_PRIVATE
    held["mount"] = outcome(libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, f"size={{2 * TMPFS}}".encode()))
    if held["mount"] == "made":
        held["nested tmpfs"], _ = fill_files(
            lambda i: os.open(f"/tmp/rm-hostile-nested-{{i}}", os.O_CREAT | os.O_WRONLY, 0o600), TMPFS)
    fs = libc.syscall(NR["fsopen"], b"tmpfs", 0)
    held["fsopen"] = outcome(fs)
    if fs >= 0:
        libc.syscall(NR["fsconfig"], fs, 1, b"size", f"{{2 * DETACHED}}".encode(), 0)  # FSCONFIG_SET_STRING
        libc.syscall(NR["fsconfig"], fs, 6, None, None, 0)  # FSCONFIG_CMD_CREATE
        mnt = libc.syscall(NR["fsmount"], fs, 0, 0)
        held["fsmount"] = outcome(mnt)
        if mnt >= 0:
            held["detached tmpfs"], fds = fill_files(
                lambda i: os.open(f"rm-hostile-detached-{{i}}", os.O_CREAT | os.O_RDWR, 0o600, dir_fd=mnt), DETACHED)
            os.close(mnt)  # the tmpfs lives on through fds, in no mount table
    held["anonymous"] = len(touch(32 << 20))  # and a second process's memory
    return held
probe["own tmpfs"] = in_a_child(own_tmpfs)

probe["other calls"] = {{
    "setns": outcome(libc.syscall(NR["setns"], os.open("/proc/self/ns/net", os.O_RDONLY), 0)),
    "umount2": outcome(libc.syscall(NR["umount2"], b"/tmp", 2)),
    "pivot_root": outcome(libc.syscall(NR["pivot_root"], b".", b".")),
    "open_tree": outcome(libc.syscall(NR["open_tree"], -100, b"/tmp", 1)),
    "fspick": outcome(libc.syscall(NR["fspick"], -100, b"/tmp", 0)),
    "move_mount": outcome(libc.syscall(NR["move_mount"], -1, b"", -100, b"/tmp", 4)),
    "mount_setattr": outcome(libc.syscall(NR["mount_setattr"], -100, b"/tmp", 0, ctypes.create_string_buffer(32),
                                          32)),
    "io_uring_setup": outcome(libc.syscall(NR["io_uring_setup"], 4096, ctypes.create_string_buffer(120))),
    "userfaultfd": outcome(libc.syscall(NR["userfaultfd"], 1)),  # UFFD_USER_MODE_ONLY
    "bpf": outcome(libc.syscall(NR["bpf"], 0, ctypes.create_string_buffer(128), 128)),
    "perf_event_open": outcome(libc.syscall(NR["perf_event_open"], ctypes.create_string_buffer(128), 0, -1, -1, 0)),
    "clone3": outcome(libc.syscall(NR["clone3"], None, 0)),
}}

probe["processes"] = in_a_child(lambda: len(touch(32 << 20)))  # a third, where the process limit allows it

probe["files"] = 0
for folder in ("/dev/shm", "/tmp", os.path.expanduser("~")):  # its own three tmpfs, until each is full
    done, fds = fill_files(
        lambda i: os.open(os.path.join(folder, f"rm-hostile-hoard-{{i}}"), os.O_CREAT | os.O_WRONLY, 0o600), 1 << 30)
    probe["files"] += done
    for fd in fds:
        os.close(fd)

pipes, probe["pipes"], probe["pipe resized"] = [], 0, "made"
for _ in range(48):
    r, w = os.pipe()
    try:
        fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ
    except OSError as exc:
        probe["pipe resized"] = errno.errorcode[exc.errno]
    os.set_blocking(w, False)
    fill(w, 1 << 20)
    probe["pipes"] += struct.unpack("i", fcntl.ioctl(r, termios.FIONREAD, b"\\0" * 4))[0]
    pipes.append((r, w))

sockets, probe["socket buffers"], probe["socket resized"] = [], 0, "made"
for _ in range(48):
    a, b = socket.socketpair()
    try:
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    except OSError as exc:
        probe["socket resized"] = errno.errorcode[exc.errno]
    a.setblocking(False)
    fill(a.fileno(), 16 << 20)
    probe["socket buffers"] += a.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)  # the most its queue takes
    sockets.append((a, b))
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
    probe["inet socket"] = "made"
except OSError as exc:
    probe["inet socket"] = errno.errorcode[exc.errno]
'''
