"""One runner for the studies' pieces of work, here or on a Dask cluster.

A study is a plan (which pieces), one function that runs a piece and
returns its figures, and an analysis of the record.  Everything between is
here, once: what is already done (the record), running the rest JOBS at a
time on this machine or on the workers of a Dask scheduler, retrying a
piece that failed, never storing a failure, and saying how far the run is.

A piece is plain data (Piece: kind, kernel, key, settings), so that it can
be shipped to another machine; run_piece(piece) -> dict must be a function
of a module the workers can import.  It raises when the piece failed (a
guest that timed out included); a returned dict with "error" or a true
"timed_out" is taken as a failure too, so that an old tool's habit of
returning its failures cannot put one into the record.  A "host" entry of
the dict (wall times, the host's load) is stored apart from the figures:
two machines' records of one plan differ there and nowhere else.

On Dask, a piece carries its kernel's bundle's digest (smlab/bundle.py):
a worker without the coordinator's files asks for the bundle once
(NeedBundle), keeps it by digest and runs the piece from it.

The record is a JSON-lines file, a line per piece: {schema, key, kind,
kernel, digest, figures, host}.  A line is appended in one write and
synced, so a run killed at any point leaves whole lines and at most one
torn last line, which the next run ignores (and runs that piece again).
digest covers whatever the figures depend on (the caller's settings
digest: module, programs, scripts, kernel images by content); a line
recorded under another digest is run again, with the reason said.
"""
import concurrent.futures as cf
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = 1


@dataclass(frozen=True)
class Piece:
    kind: str
    kernel: str
    key: str
    settings: tuple = ()        # sorted (name, value) pairs, values JSON-able

    @classmethod
    def make(cls, kind, kernel, key, **settings):
        for k, v in settings.items():
            json.dumps(v)       # TypeError now, not on a worker
        return cls(kind, kernel, key, tuple(sorted(
            (k, tuple(v) if isinstance(v, list) else v) for k, v in settings.items())))

    def get(self, name, default=None):
        return dict(self.settings).get(name, default)

    def as_dict(self):
        return {"kind": self.kind, "kernel": self.kernel, "key": self.key,
                "settings": dict(self.settings)}


def digest(*parts):
    """SHA-256 (hex) of JSON-able parts; a Path part counts by its contents
    (a directory by its files' names and contents, sorted)."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, Path):
            files = sorted(x for x in p.rglob("*") if x.is_file()) if p.is_dir() else [p]
            for f in files:
                h.update(str(f.relative_to(p) if p.is_dir() else f.name).encode() + b"\0")
                h.update(hashlib.sha256(f.read_bytes()).digest())
        else:
            h.update(json.dumps(p, sort_keys=True, default=str).encode() + b"\0")
    return h.hexdigest()


class PieceFailed(Exception):
    """run_piece's way to say a piece failed (its reason in the message)."""


class NeedBundle(Exception):
    """A worker's word that it has not got the piece's bundle (smlab/bundle.py):
    the piece is sent again with it, which is no try of the piece."""


class Record:
    """The JSON-lines record of one study."""

    def __init__(self, path):
        self.path = Path(path)
        self.lines = {}         # key -> its last whole line
        self.torn = 0
        if self.path.exists():
            for text in self.path.read_text().split("\n"):
                if not text.strip():
                    continue
                try:
                    rec = json.loads(text)
                except ValueError:
                    self.torn += 1
                    continue
                if rec.get("schema") == SCHEMA and "key" in rec:
                    self.lines[rec["key"]] = rec

    def done(self, piece, dig):
        """(figures, None) if the piece is recorded under dig, else (None,
        why it must run)."""
        rec = self.lines.get(piece.key)
        if rec is None:
            return None, "not recorded"
        if rec.get("digest") != dig:
            return None, "recorded under other settings (%s, now %s)" % (
                str(rec.get("digest"))[:12], dig[:12])
        return rec["figures"], None

    def add(self, piece, dig, figures, host=None):
        rec = {"schema": SCHEMA, "key": piece.key, "kind": piece.kind,
               "kernel": piece.kernel, "digest": dig, "figures": figures,
               "host": host or {}}
        line = json.dumps(rec, sort_keys=True, default=str) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            # a torn line left by a killed run would glue onto this one
            if os.fstat(fd).st_size and not self._ends_in_newline():
                line = "\n" + line
            os.write(fd, line.encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        self.lines[piece.key] = rec

    def _ends_in_newline(self):
        with open(self.path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) == b"\n"

    def compact(self):
        """The record rewritten sorted by key, one line per piece (atomic):
        what a repository keeps and diffs."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text("".join(json.dumps(self.lines[k], sort_keys=True, default=str) + "\n"
                               for k in sorted(self.lines)))
        os.replace(tmp, self.path)


@dataclass
class Report:
    figures: dict = field(default_factory=dict)     # key -> figures, run or reused
    ran: list = field(default_factory=list)
    reused: list = field(default_factory=list)
    missing: dict = field(default_factory=dict)     # key -> the last failure's reason
    attempts: dict = field(default_factory=dict)    # key -> tries made in this run

    @property
    def complete(self):
        return not self.missing


def _failure(out):
    if not isinstance(out, dict):
        return "returned %s, not a dict" % type(out).__name__
    if out.get("timed_out"):
        return "timed out"
    if "error" in out:
        return "error: %s" % out["error"]
    return None


def _call(run_piece, piece):
    t0 = time.monotonic()
    out = run_piece(piece)
    if isinstance(out, dict) and "host" not in out:
        out = dict(out, host={})
    if isinstance(out, dict):
        out["host"] = dict(out["host"], piece_wall_s=round(time.monotonic() - t0, 3))
    return out


class _Progress:
    def __init__(self, total, reused, jobs, say):
        self.total, self.reused, self.jobs, self.say = total, reused, jobs, say
        self.done, self.failed, self.running, self.walls = 0, 0, 0, []

    def line(self):
        left = self.total - self.reused - self.done - self.failed - self.running
        eta = ""
        if self.walls:
            # from pieces run in this run only: reused ones took no time
            per = sum(self.walls) / len(self.walls)
            eta = ", about %.0f min left" % (per * (left + self.running) / self.jobs / 60)
        self.say("[runner] %d/%d done (%d reused), %d running, %d left, %d failed%s"
                 % (self.reused + self.done, self.total, self.reused, self.running, left,
                    self.failed, eta))


def run(pieces, run_piece, record, dig, jobs=1, retries=1, scheduler=None, say=None,
        on_result=None, tick=None, tick_s=60):
    """Run every piece of pieces not in record under dig(piece) (a str or a
    function of the piece), JOBS at a time here, or on scheduler's workers
    (a Dask scheduler's address, or a distributed Client or cluster);
    a failed piece is tried again up to retries times, then reported
    missing.  scheduler "slurm:N" asks Slurm for N jobs of `jobs` workers
    each (smlab/slurm.py).  on_result(piece, figures) is called in the
    coordinator as each piece is stored; tick(running pieces) every tick_s
    seconds in which none ended (a tool's own word on how far its guests
    are).  Returns a Report."""
    say = say or (lambda m: print(m, file=sys.stderr, flush=True))
    record = record if isinstance(record, Record) else Record(record)
    keys = [p.key for p in pieces]
    if len(set(keys)) != len(keys):
        raise ValueError("two pieces with one key")
    dig_of = dig if callable(dig) else (lambda p: dig)
    rep, todo = Report(), []
    for p in pieces:
        figs, why = record.done(p, dig_of(p))
        if figs is None:
            todo.append(p)
            if why != "not recorded":
                say("[runner] %s: %s: running it again" % (p.key, why))
        else:
            rep.figures[p.key] = figs
            rep.reused.append(p.key)
    if record.torn:
        say("[runner] %s: %d torn line(s) ignored" % (record.path, record.torn))
    prog = _Progress(len(pieces), len(rep.reused), max(1, jobs), say)
    if not todo:
        prog.line()
        return rep
    engine = _Dask(scheduler, todo, run_piece, jobs) if scheduler is not None else _Local(jobs)
    try:
        pending = {}

        def submit(p, bundle=False):
            if not bundle:
                rep.attempts[p.key] = rep.attempts.get(p.key, 0) + 1
            pending[engine.submit(run_piece, p, bundle)] = p
            prog.running += 1

        for p in todo:
            submit(p)
        prog.line()
        while pending:
            fut = engine.next_done(list(pending), tick_s if tick else None)
            if fut is None:
                tick(list(pending.values()))
                continue
            p = pending.pop(fut)
            prog.running -= 1
            try:
                out = fut.result()
                why = _failure(out)
            except NeedBundle:
                submit(p, bundle=True)
                continue
            except Exception as e:  # noqa: BLE001: any failure of a piece is its own
                out, why = None, "%s: %s" % (type(e).__name__, e)
            if why is None:
                host = out.pop("host")
                # as the record holds it, so that a run's figures and a
                # resumed run's are the same objects
                out = json.loads(json.dumps(out, default=str))
                prog.walls.append(host.get("piece_wall_s", 0.0))
                record.add(p, dig_of(p), out, host)
                rep.figures[p.key] = out
                rep.ran.append(p.key)
                rep.missing.pop(p.key, None)
                prog.done += 1
                if on_result:
                    on_result(p, out)
            elif rep.attempts[p.key] <= retries:
                say("[runner] %s failed (%s): try %d" % (p.key, why, rep.attempts[p.key] + 1))
                rep.missing[p.key] = why
                submit(p)
            else:
                say("[runner] %s failed (%s): missing" % (p.key, why))
                rep.missing[p.key] = why
                prog.failed += 1
            prog.line()
    finally:
        engine.close()
    return rep


class _Local:
    """Threads: a piece's work is a guest (a process), the GIL is no limit."""

    def __init__(self, jobs):
        self.pool = cf.ThreadPoolExecutor(max_workers=max(1, jobs))

    def submit(self, fn, piece, bundle=False):
        return self.pool.submit(_call, fn, piece)

    @staticmethod
    def next_done(futs, timeout=None):
        done = cf.wait(futs, timeout=timeout, return_when=cf.FIRST_COMPLETED).done
        return next(iter(done)) if done else None

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)


def _call_remote(module, name, piece, ref, data):
    """On a Dask worker: the piece from the coordinator's paths if this
    worker shares them, else from its bundle (NeedBundle if this machine
    has not got it and data, the bundle's tar, was not sent).  The function
    goes by its module's name: a worker that runs pieces from bundles need
    not have the module."""
    import importlib
    from . import bundle
    if bundle.shared(ref):
        return _call(getattr(importlib.import_module(module), name), piece)
    if data is None and not bundle.have(ref):
        raise NeedBundle(ref.digest)
    t0 = time.monotonic()
    try:
        out, notes = bundle.run((module, name), piece, ref, data)
    except bundle.Refused as e:
        raise PieceFailed("refused by %s: %s" % (os.uname().nodename, e)) from None
    if isinstance(out, dict):
        out = dict(out, host=dict(out.get("host") or {}, **notes,
                                  piece_wall_s=round(time.monotonic() - t0, 3)))
    return out


class _Dask:
    """A Dask scheduler's workers.  A worker that dies mid-piece loses
    nothing: the scheduler gives the piece to another (a piece whose
    workers keep dying is a failure, retried like any other).  Each piece
    carries a reference to its kernel's bundle (smlab/bundle.py); the
    bundle itself goes to a worker that asks for it."""

    def __init__(self, scheduler, pieces=(), fn=None, jobs=None):
        from distributed import Client
        if isinstance(scheduler, str) and scheduler.startswith("slurm"):
            from . import slurm
            scheduler = slurm.client(scheduler, jobs)
        if isinstance(scheduler, Client):
            # a Slurm cluster's client is the runner's own, to close
            self.client = scheduler
            self.own = getattr(scheduler, "_smlab_cluster", None) is not None
        else:
            self.client, self.own = Client(scheduler), True
        publish(self.client)
        self.bundles, self.sent = {}, {}
        if fn is not None and os.environ.get("SMLAB_NO_BUNDLES", "") in ("", "0"):
            from . import bundle
            by = {}
            for p in pieces:
                by.setdefault(p.kernel, []).append(p)
            for k, ps in by.items():
                self.bundles[k] = bundle.Bundle(k, ps, fn)

    def submit(self, fn, piece, with_bundle=False):
        b = self.bundles.get(piece.kernel)
        data = None
        if with_bundle and b is not None:
            if b.ref.digest not in self.sent:
                # to one worker; the others fetch it from there
                self.sent[b.ref.digest] = self.client.scatter(b.tar(), hash=False)
            data = self.sent[b.ref.digest]
        # pure=False: a retry is a new task, never the failed one's result
        if b is None:
            return self.client.submit(_call, fn, piece, pure=False)
        return self.client.submit(_call_remote, b.ref.module, fn.__name__, piece, b.ref, data,
                                  pure=False)

    @staticmethod
    def next_done(futs, timeout=None):
        from distributed import wait
        try:
            done = wait(futs, timeout=timeout, return_when="FIRST_COMPLETED").done
        except TimeoutError:
            return None
        return next(iter(done)) if done else None

    def close(self):
        for f in self.sent.values():
            f.release()
        if self.own:
            self.client.close()
            cluster = getattr(self.client, "_smlab_cluster", None)
            if cluster is not None:
                cluster.close()


# -- what a worker must share with the coordinator ----------------------------

LAB_KEY = "smodem-lab"
# where a worker finds the study tools whose run_piece it is sent by name
# (relative to the project's top): tools/*.py, tools/loadbound/*.py
WORKER_PATH = ("tools", "tools/loadbound")


def lab_identity(top=None, kernels=()):
    """What a piece's figures depend on beyond its settings, by content:
    the project's commit, the QEMU binary, the kernel images given."""
    import shutil
    import subprocess
    top = Path(top or Path(__file__).resolve().parents[3])
    try:
        commit = subprocess.run(["git", "-C", str(top), "rev-parse", "HEAD"], check=True,
                                capture_output=True, text=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "-C", str(top), "status", "--porcelain",
                                     "--untracked-files=no"], capture_output=True,
                                    text=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        commit, dirty = None, None
    qemu = shutil.which("qemu-system-x86_64")
    ident = {"commit": commit, "dirty": dirty,
             "qemu": digest(Path(qemu)) if qemu else None}
    for k in kernels:
        img = Path("/boot/vmlinuz-%s" % k)
        ident["kernel " + k] = digest(img) if img.exists() else None
    return ident


def publish(client, ident=None):
    """The coordinator's lab identity, for workers to check before joining."""
    client.set_metadata(LAB_KEY, ident or lab_identity())


def mismatch(mine, theirs):
    """Why a worker with identity mine may not run the coordinator's
    (theirs) pieces, or None."""
    if theirs is None:
        return "the scheduler has no lab identity (no study has published one yet)"
    bad = ["%s: here %s, coordinator %s" % (k, str(mine.get(k))[:12], str(v)[:12])
           for k, v in sorted(theirs.items()) if mine.get(k) != v]
    return "; ".join(bad) or None
