'''A notebook that tries to hold several GiB outside its own address space: in forked processes, in
memfd, in SysV shared memory and in its tmpfs (/dev/shm, /tmp, HOME).  ``HOLD`` counts what it managed
to hold (every page touched) into ``probe``; ``tests/test_memory_bound.py`` checks it against the bound
``reading-maths doctor`` states.  Each try stops at the first refusal, so it is quick where it is bounded.
'''

HOLD = r'''
import ctypes, mmap, os, time
CHUNK = 32 << 20
def touch(n):
    block = bytearray(n)
    block[::4096] = b"\1" * len(range(0, n, 4096))
    return block
def hog(limit):
    kept, total = [], 0
    while total < limit:
        try:
            kept.append(touch(CHUNK))
        except MemoryError:
            break
        total += CHUNK
    return kept, total
held = {"processes": 0, "memfd": 0, "sysv": 0, "files": 0}
readers = []
for _ in range(8):  # up to 8 processes of 1 GiB each, which keep what they got
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r); os.close(w)
        break
    if pid == 0:
        kept, total = hog(1 << 30)
        os.write(w, str(total).encode().ljust(20))
        time.sleep(600)
        os._exit(0)
    os.close(w)
    readers.append(r)
for r in readers:
    held["processes"] += int(os.read(r, 20).decode() or 0)
for _ in range(4):  # 4 x 1 GiB of memfd, mapped and touched
    try:
        fd = os.memfd_create("rm-hostile-memfd")
        os.ftruncate(fd, 1 << 30)
        view = mmap.mmap(fd, 1 << 30)
    except OSError:
        break
    for i in range(0, 1 << 30, 4096):
        view[i] = 1
    held["memfd"] += 1 << 30
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
for key in range(4):  # 4 x 1 GiB of SysV shared memory, touched and detached
    shm = libc.shmget(0x5EA0 + key, 1 << 30, 0o1600)
    if shm < 0:
        break
    address = libc.shmat(shm, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        break
    ctypes.memset(address, 1, 1 << 30)
    libc.shmdt(ctypes.c_void_p(address))
    held["sysv"] += 1 << 30
for folder in ("/dev/shm", "/tmp", os.path.expanduser("~")):  # files until the disk says no
    with open(os.path.join(folder, "rm-hostile-fill"), "wb", buffering=0) as fh:
        for _ in range(2048):
            try:
                fh.write(b"\1" * (1 << 20))
            except OSError:
                break
    held["files"] += os.stat(os.path.join(folder, "rm-hostile-fill")).st_blocks * 512
kept, held["this process"] = hog(4 << 30)
probe = held
'''
