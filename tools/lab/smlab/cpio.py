"""Minimal writer for the "newc" cpio format the kernel unpacks as initramfs.

Written in Python rather than with cpio(1) so that the archive is bit-for-bit
reproducible (fixed inode numbers, owners and mtimes) and can contain device
nodes without root.
"""

import os
import stat


class Cpio:
    def __init__(self):
        self._chunks = []
        self._ino = 1
        self._entries = {}  # path -> mode, for parent creation / clashes

    # -- low level ---------------------------------------------------------
    def _emit(self, name, mode, data=b"", rdev=(0, 0)):
        fields = (self._ino, mode, 0, 0, 1, 0, len(data), 0, 0,
                  rdev[0], rdev[1], len(name) + 1, 0)
        self._ino += 1
        hdr = b"070701" + b"".join(b"%08X" % f for f in fields)
        entry = bytearray(hdr + name.encode() + b"\0")
        entry += b"\0" * (-len(entry) % 4)
        entry += data
        entry += b"\0" * (-len(entry) % 4)
        self._chunks.append(bytes(entry))

    def _add(self, path, mode, data=b"", rdev=(0, 0)):
        name = path.strip("/")
        if not name:
            return
        if name in self._entries:
            if stat.S_ISDIR(mode) and stat.S_ISDIR(self._entries[name]):
                return
            raise ValueError("duplicate initramfs entry: /" + name)
        parent = os.path.dirname(name)
        if parent and parent not in self._entries:
            self.dir(parent)
        self._entries[name] = mode
        self._emit(name, mode, data, rdev)

    # -- entries -----------------------------------------------------------
    def dir(self, path, perm=0o755):
        self._add(path, stat.S_IFDIR | perm)

    def file(self, path, data, perm=0o644):
        if isinstance(data, str):
            data = data.encode()
        self._add(path, stat.S_IFREG | perm, data)

    def host_file(self, path, src, perm=None):
        with open(src, "rb") as f:
            data = f.read()
        if perm is None:
            perm = 0o755 if os.stat(src).st_mode & 0o111 else 0o644
        self.file(path, data, perm)

    def symlink(self, path, target):
        self._add(path, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, path, major, minor, perm=0o600):
        self._add(path, stat.S_IFCHR | perm, rdev=(major, minor))

    def exists(self, path):
        return path.strip("/") in self._entries

    def bytes(self):
        trailer = Cpio.__new__(Cpio)
        trailer._chunks = []
        trailer._ino = 0
        trailer._emit("TRAILER!!!", 0)
        out = b"".join(self._chunks) + trailer._chunks[0]
        # concatenated archives must start on a 4-byte boundary; pad to 512
        # like cpio(1) so that appending per-run archives stays simple
        return out + b"\0" * (-len(out) % 512)
