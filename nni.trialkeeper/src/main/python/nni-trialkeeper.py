#!/usr/bin/env python3
"""The trial keeper for workers that have Python 3.7+ and no Java.

Runs trials for an NNI experiment on this machine and reports them to the manager's one HTTP
endpoint, speaking exactly the protocol of the Java keeper (nni.trialkeeper, see its README):
a handshake naming the protocol version, numbered report batches from an on-disk spool that are
forgotten only once the manager acknowledges them, and long-polled commands. Standard library only;
one file, so that it can be copied to a worker and run as ``python3 nni-trialkeeper.py``.

Exit codes: the trial's code (trial mode, also when the session is gone after the trial's end), 0
(stopped, also when refused after the stop), 2 (bad command line), 3 (refused by the manager: token, protocol version, session gone), 4 (manager
unreachable, or answering nothing usable, for longer than --give-up-seconds).
"""

import collections
import gzip
import http.client
import json
import os
import random
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.parse

VERSION = "1.0.0"
EXIT_USAGE = 2
EXIT_REFUSED = 3
EXIT_UNREACHABLE = 4
TOKEN_VARIABLE = "NNI_KEEPER_TOKEN"

BATCH_REPORTS = 2000
BATCH_BYTES = 1 << 20
POLL_MILLIS = 10000
GPU_REPORT_SECONDS = 30
METRICS_FILE_SECONDS = 0.1

USAGE = "\n".join([
    "usage: %1$s trial  --manager URL --experiment ID --trial ID       --platform NAME --code ARCHIVE --command CMD [options]",
    "       %1$s runner --manager URL --experiment ID --environment ID --platform NAME --code ARCHIVE --command CMD [options]",
    "       %1$s --help | --version",
    "Runs trials for an NNI experiment on this machine and reports them to the manager's HTTP endpoint.",
    "options:",
    "  --work-dir DIR            where trials run (default: the current directory)",
    "  --token-file FILE         the keeper's secret; otherwise the environment variable NNI_KEEPER_TOKEN",
    "  --channel DIR             talk to the manager through files in DIR, a folder the manager made on a",
    "                            storage both share, instead of HTTP (then --manager is not needed)",
    "  --give-up-seconds N       how long an unreachable or unusable manager is retried (3600)",
    "  --kill-grace-seconds N    SIGTERM to SIGKILL of a cancelled trial's process group (5)",
    "  --spool-limit-mb N        unacknowledged reports kept on disk before output reading pauses (64)",
    "  --max-code-mb N           largest unpacked size of the code archive (512)",
    "  --max-code-entries N      most entries in the code archive (20000)",
    "exit codes: the trial's code (trial mode), 0 (stopped, also when refused after), 2 (bad command line),",
    "  3 (refused by the manager: token, protocol version, session gone), 4 (manager unreachable or",
    "  answering unusably for longer than --give-up-seconds)",
    "",
])
INVOCATION = "python3 nni-trialkeeper.py"


def test_protocol():
    """The protocol this keeper claims: 1, or another one only where a test asks for a mismatch."""
    try:
        return int(os.environ.get("NNI_KEEPER_TEST_PROTOCOL", "").strip() or 1)
    except ValueError:
        return 1


PROTOCOL = test_protocol()


def version_line():
    return "nni-trialkeeper %s (trial protocol %d)" % (VERSION, PROTOCOL)


def log(message):
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def now_millis():
    return int(time.time() * 1000)


def to_json(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def is_whole(value):
    return type(value) is int


# ---------------------------------------------------------------------------------------------
# command line

class UsageError(Exception):
    pass


class Options(object):
    KNOWN = ("manager", "channel", "experiment", "trial", "environment", "platform", "code", "command", "work-dir", "token-file",
             "give-up-seconds", "kill-grace-seconds", "spool-limit-mb", "max-code-mb", "max-code-entries")

    def __init__(self, args, environment):
        if not args or args[0] not in ("trial", "runner"):
            raise UsageError("the first argument must be the mode, 'trial' or 'runner'")
        self.mode = args[0]
        values = {}
        i = 1
        while i < len(args):
            name = args[i]
            if not name.startswith("--"):
                raise UsageError("unexpected argument '%s'" % name)
            if i + 1 >= len(args):
                raise UsageError(name + " needs a value")
            values[name[2:]] = args[i + 1]
            i += 2
        id_option = "environment" if self.runner else "trial"
        for required in ("manager", "experiment", id_option, "platform", "code", "command"):
            if required == "manager" and "channel" in values:
                continue
            if not values.get(required, "").strip():
                raise UsageError("--%s is required in %s mode" % (required, self.mode))
        if "token-file" in values:
            try:
                with open(values["token-file"], "r", encoding="utf-8") as f:
                    token = f.read().strip()
            except (OSError, UnicodeDecodeError) as e:
                raise UsageError("--token-file: cannot read %s: %s" % (values["token-file"], e))
        else:
            token = environment.get(TOKEN_VARIABLE)
        if token is None or not token.strip():
            raise UsageError("no token: give --token-file or set " + TOKEN_VARIABLE)
        for name in values:
            if name not in self.KNOWN:
                raise UsageError("unknown option --%s (see --help)" % name)
        if "channel" in values and not values["channel"].strip():
            raise UsageError("--channel needs a folder")
        self.manager_url = values.get("manager")
        self.channel = os.path.normpath(os.path.abspath(values["channel"])) if "channel" in values else None
        self.experiment_id = values["experiment"]
        self.keeper_id = values[id_option]
        self.platform = values["platform"]
        self.code_archive = os.path.abspath(values["code"])
        self.command = values["command"]
        self.work_directory = os.path.normpath(os.path.abspath(values.get("work-dir", ".")))
        self.token = token
        self.give_up_seconds = self.number(values, "give-up-seconds", 3600)
        self.kill_grace_seconds = self.number(values, "kill-grace-seconds", 5)
        self.spool_limit_bytes = self.number(values, "spool-limit-mb", 64) << 20
        self.max_code_bytes = self.number(values, "max-code-mb", 512) << 20
        self.max_code_entries = self.number(values, "max-code-entries", 20000)

    @property
    def runner(self):
        return self.mode == "runner"

    @staticmethod
    def number(values, name, fallback):
        value = values.get(name)
        if value is None:
            return fallback
        if not value.isdigit() or not value.isascii() or len(value) > 18:
            raise UsageError("--%s must be a non-negative whole number, got '%s'" % (name, value))
        return int(value)


# ---------------------------------------------------------------------------------------------
# the code archive

class UnsafeEntry(Exception):
    """An entry that must not be unpacked, or an archive that cannot be read; the message names it."""


MAX_LINKS_FOLLOWED = 40
BLOCK = 512


class CodeArchive(object):
    """Unpacks the trial code (tar.gz: plain, ustar, GNU long names, pax) into a directory, refusing
    absolute names, names whose '..' leave it, links whose target leaves it (resolved link by link
    against what is on disk, so a chain of in-tree links cannot lead out), hard links, devices and
    writes through a link; the unpacked size and the number of entries are capped."""

    def __init__(self, archive, max_bytes, max_entries):
        self.archive = archive
        self.name = os.path.basename(archive)
        self.max_bytes = max_bytes
        self.max_entries = max_entries

    def extract(self, target):
        os.makedirs(target, exist_ok=True)
        root = os.path.realpath(target)
        try:
            with gzip.open(self.archive, "rb") as stream:
                self._extract(stream, root)
        except UnsafeEntry:
            raise
        except (OSError, EOFError, ValueError, UnicodeError) as e:
            raise UnsafeEntry("%s: cannot be unpacked: %s" % (self.name, e))

    def _read(self, stream, size):
        data = stream.read(size)
        if len(data) < size:
            raise UnsafeEntry(self.name + ": truncated")
        return data

    def _skip(self, stream, size):
        while size > 0:
            chunk = stream.read(min(size, 1 << 16))
            if not chunk:
                raise UnsafeEntry(self.name + ": truncated")
            size -= len(chunk)

    def _padding(self, size):
        return (BLOCK - size % BLOCK) % BLOCK

    def _extract(self, stream, root):
        long_name = None
        long_link = None
        pax = {}
        entries = 0
        unpacked = 0
        while True:
            header = stream.read(BLOCK)
            if not header:
                return  # end of stream without the two zero blocks: accepted, as tar does
            if len(header) < BLOCK:
                raise UnsafeEntry(self.name + ": truncated tar header")
            if header == b"\0" * BLOCK:
                return
            name = long_name if long_name is not None else pax.get("path", self._name(header))
            link = long_link if long_link is not None else pax.get("linkpath", self._field(header, 157, 100))
            kind = chr(header[156])
            size = self._octal(header, 124, 12)
            mode = self._octal(header, 100, 8)
            long_name = None
            long_link = None
            if kind in ("L", "K", "x", "g"):
                if size > 1 << 20:
                    raise UnsafeEntry(self.name + ": extended header larger than 1 MiB")
                data = self._read(stream, size)
                self._skip(stream, self._padding(size))
                if kind == "L":
                    long_name = data.decode("utf-8").replace("\0", "")
                elif kind == "K":
                    long_link = data.decode("utf-8").replace("\0", "")
                elif kind == "x":
                    pax = self.pax_records(data, self.name)
                    continue
                if kind != "g":
                    pax = {}
                continue
            pax = {}
            entries += 1
            if entries > self.max_entries:
                raise UnsafeEntry("%s: more than %d entries; refusing the archive (the keeper's --max-code-entries)"
                                  % (self.name, self.max_entries))
            destination = self._inside(root, name, name)
            if destination == root and kind != "5":
                raise UnsafeEntry("%s: entry '%s' would replace the code directory itself" % (self.name, name))
            if kind in ("0", "\0", "7"):
                unpacked += size
                if unpacked > self.max_bytes:
                    raise UnsafeEntry("%s: entry '%s' takes the unpacked code over %d MiB; refusing the archive"
                                      " (the keeper's --max-code-mb)" % (self.name, name, self.max_bytes >> 20))
                self._ensure_parents(root, destination, name)
                if os.path.islink(destination):
                    raise UnsafeEntry("%s: entry '%s' would be written through a link" % (self.name, name))
                fd = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o666)
                with os.fdopen(fd, "wb") as out:
                    left = size
                    while left > 0:
                        chunk = stream.read(min(left, 1 << 16))
                        if not chunk:
                            raise UnsafeEntry(self.name + ": truncated")
                        out.write(chunk)
                        left -= len(chunk)
                self._skip(stream, self._padding(size))
                if mode & 0o100:
                    os.chmod(destination, os.stat(destination).st_mode | stat.S_IXUSR)
            elif kind == "5":
                self._ensure_parents(root, destination, name)
                os.makedirs(destination, exist_ok=True)
                self._skip(stream, size + self._padding(size))
            elif kind == "2":
                if not link or link.startswith("/"):
                    raise UnsafeEntry("%s: link '%s' points to the absolute path '%s'" % (self.name, name, link))
                self._ensure_parents(root, destination, name)
                if os.path.lexists(destination):
                    # replacing a path another link already resolved through could redirect that link
                    raise UnsafeEntry("%s: link '%s' would replace an entry unpacked before it" % (self.name, name))
                self._check_link_target(root, os.path.realpath(os.path.dirname(destination)), link, name)
                os.symlink(link, destination)
                self._skip(stream, size + self._padding(size))
            elif kind == "1":
                raise UnsafeEntry("%s: entry '%s' is a hard link (to '%s'); hard links are not unpacked" % (self.name, name, link))
            else:
                raise UnsafeEntry("%s: entry '%s' has type '%s' (device, FIFO or unknown); only files, directories and"
                                  " links inside the code are unpacked" % (self.name, name, kind))

    def _inside(self, root, name, entry):
        """Where name lands below root; refuses absolute names and names leaving root."""
        if not name or name.startswith("/") or name.startswith("\\") or (len(name) > 1 and name[1] == ":" and name[0].isalpha()):
            raise UnsafeEntry("%s: entry '%s' has an absolute path; refusing the archive" % (self.name, entry))
        if "\0" in name:
            raise UnsafeEntry("%s: entry '%s' is not a valid path; refusing the archive" % (self.name, entry.replace("\0", "\\0")))
        resolved = os.path.normpath(os.path.join(root, name))
        if resolved != root and not resolved.startswith(root + os.sep):
            raise UnsafeEntry("%s: entry '%s' would land outside the code directory; refusing the archive" % (self.name, entry))
        return resolved

    def _ensure_parents(self, root, destination, name):
        """Creates the parent directories and checks, on disk, that no link on the way leads out."""
        if destination == root:
            return
        parent = os.path.dirname(destination)
        os.makedirs(parent, exist_ok=True)
        real = os.path.realpath(parent)
        if real != root and not real.startswith(root + os.sep):
            raise UnsafeEntry("%s: entry '%s' would be written through a link that leaves the code directory" % (self.name, name))

    def _check_link_target(self, root, directory, target, name):
        """Follows a link target from the link's real directory as the kernel will, component by component
        against what is on disk now, expanding every link on the way: every step must stay inside root.
        Past a component that does not exist yet, '..' is refused, since what is created there later decides
        where it leads."""
        components = collections.deque(target.split("/"))
        current = directory
        missing = False
        followed = 0
        while components:
            component = components.popleft()
            if component in ("", "."):
                continue
            if component == "..":
                if missing:
                    raise UnsafeEntry("%s: link '%s' points to '%s', which goes up from a directory that does not exist yet;"
                                      " refusing the archive" % (self.name, name, target))
                if current == root:
                    raise UnsafeEntry("%s: link '%s' points to '%s', which leads outside the code directory; refusing the archive"
                                      % (self.name, name, target))
                current = os.path.dirname(current)
                continue
            following = os.path.join(current, component)
            if not missing and os.path.islink(following):
                followed += 1
                if followed > MAX_LINKS_FOLLOWED:
                    raise UnsafeEntry("%s: link '%s' points through more than %d links; refusing the archive"
                                      % (self.name, name, MAX_LINKS_FOLLOWED))
                inner = os.readlink(following)
                if inner.startswith("/"):
                    raise UnsafeEntry("%s: link '%s' points through '%s', an absolute link; refusing the archive"
                                      % (self.name, name, os.path.relpath(following, root)))
                components.extendleft(reversed(inner.split("/")))
                continue
            missing = missing or not os.path.lexists(following)
            current = following

    @staticmethod
    def pax_records(data, archive_name):
        """Parses pax records, b"<length> <key>=<value>\\n", where the length in bytes covers the record."""
        records = {}
        at = 0
        while at < len(data):
            if data[at] == 0:
                break  # padding some writers leave after the last record
            space = at
            while space < len(data) and 0x30 <= data[space] <= 0x39 and space - at < 10:
                space += 1
            length = int(data[at:space]) if space > at else 0
            if (space == at or space >= len(data) or data[space] != 0x20 or length <= space - at + 1
                    or at + length > len(data) or data[at + length - 1] != 0x0A):
                raise UnsafeEntry("%s: malformed pax extended header at byte %d; refusing the archive" % (archive_name, at))
            record = data[space + 1:at + length - 1].decode("utf-8")
            key, equals, value = record.partition("=")
            if not equals or not key:
                raise UnsafeEntry("%s: malformed pax extended header record '%s'; refusing the archive" % (archive_name, record))
            records[key] = value
            at += length
        return records

    def _name(self, header):
        name = self._field(header, 0, 100)
        prefix = self._field(header, 345, 155)
        return prefix + "/" + name if header[257:262] == b"ustar" and prefix else name

    @staticmethod
    def _field(header, offset, length):
        raw = header[offset:offset + length]
        end = raw.find(b"\0")
        return (raw if end < 0 else raw[:end]).decode("utf-8")

    def _octal(self, header, offset, length):
        text = self._field(header, offset, length).strip()
        if not text:
            return 0
        if not all(c in "01234567" for c in text):
            raise UnsafeEntry("%s: corrupt tar header (number '%s')" % (self.name, text))
        return int(text, 8)


# ---------------------------------------------------------------------------------------------
# the spool

class Spool(object):
    """The reports the manager has not acknowledged yet, in order, on disk (reports.spool, one JSON report
    per line; reports.acked, the last acknowledged sequence). Every report gets the next sequence of this
    keeper's stream. Bounded: a full spool blocks append, which stops the reading of the trial's output."""

    def __init__(self, directory, limit_bytes):
        os.makedirs(directory, exist_ok=True)
        self.file = os.path.join(directory, "reports.spool")
        self.acked_file = os.path.join(directory, "reports.acked")
        self.limit_bytes = limit_bytes
        self.pending = collections.deque()
        self.pending_bytes = 0
        self.next_seq = 1
        self.acked = 0
        self.closed = False
        self.abandoned = False  # nothing more will be acknowledged: a wait for acknowledgements ends at once
        self.condition = threading.Condition()
        if os.path.exists(self.acked_file):
            with open(self.acked_file, "r") as f:
                self.acked = int(f.read().strip())
            self.next_seq = self.acked + 1
        if os.path.exists(self.file):
            with open(self.file, "r", encoding="utf-8") as f:
                for line in f:
                    line = line.rstrip("\n")
                    if not line.strip():
                        continue
                    try:
                        seq = json.loads(line)["seq"]
                    except (ValueError, KeyError, TypeError):
                        continue  # the last line of a keeper that died while writing it
                    if seq > self.acked:
                        self.pending.append((seq, line))
                        self.pending_bytes += len(line)
                    self.next_seq = max(self.next_seq, seq + 1)
        self.out = open(self.file, "a", encoding="utf-8")

    def append(self, report):
        with self.condition:
            while self.pending_bytes >= self.limit_bytes and not self.closed:
                self.condition.wait()
            if self.closed:
                raise OSError("the spool is closed")
            seq = self.next_seq
            self.next_seq += 1
            line = '{"seq":%d,%s' % (seq, to_json(report)[1:])
            self.out.write(line + "\n")
            self.out.flush()
            self.pending.append((seq, line))
            self.pending_bytes += len(line)
            self.condition.notify_all()
            return seq

    def peek(self, max_reports, max_bytes, timeout):
        """Waits until there is something to send or the timeout passes; returns (reports, last seq)."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while not self.pending and not self.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.condition.wait(left)
            batch = []
            size = 0
            last = self.acked
            for seq, line in self.pending:
                if len(batch) >= max_reports or (size > 0 and size + len(line) > max_bytes):
                    break
                batch.append(line)
                size += len(line)
                last = seq
            return batch, last

    def acknowledge(self, seq):
        with self.condition:
            if seq <= self.acked:
                return
            while self.pending and self.pending[0][0] <= seq:
                self.pending_bytes -= len(self.pending.popleft()[1])
            self.acked = seq
            temporary = self.acked_file + ".tmp"
            with open(temporary, "w") as f:
                f.write(str(seq))
            os.replace(temporary, self.acked_file)
            if not self.pending and not self.closed:
                self.out.truncate(0)  # everything is acknowledged: the file starts over
            self.condition.notify_all()

    def await_empty(self, timeout):
        """True once every report is acknowledged; False when the timeout passes first or the spool is abandoned."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while self.pending:
                if self.abandoned or self.closed:
                    return False
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.condition.wait(left)
            return True

    def abandon(self):
        with self.condition:
            self.abandoned = True
            self.condition.notify_all()

    def pending_count(self):
        with self.condition:
            return len(self.pending)

    def close(self):
        with self.condition:
            self.closed = True
            self.condition.notify_all()
            self.out.close()


# ---------------------------------------------------------------------------------------------
# the manager's routes

class Refused(Exception):
    """The manager said, in its own words (a JSON error), that this keeper must stop. after_stop: it had
    written this keeper a stop before it ended the session, so this is the end it asked for."""

    def __init__(self, message, after_stop=False, session_gone=False):
        Exception.__init__(self, message)
        self.after_stop = after_stop
        # 410: the session is gone (it ended), not this keeper refused for what it is
        self.session_gone = session_gone


class Unusable(Exception):
    """An answer the keeper cannot use; it tries again later."""

    def __init__(self, status, message):
        Exception.__init__(self, message)
        self.status = status


def shorten(text):
    return text if len(text) <= 200 else text[:200] + "..."


class ManagerClient(object):
    """The keeper's side of <manager>/api/v1/nni-trial/<experiment>/<keeper id>/..., one persistent
    connection per calling thread, every request with the token as Authorization: Bearer."""

    def __init__(self, manager_url, experiment_id, keeper_id, token):
        url = urllib.parse.urlsplit(manager_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise UsageError("--manager must be an http:// or https:// URL, got '%s'" % manager_url)
        self.scheme = url.scheme
        self.host = url.hostname
        self.port = url.port or (443 if url.scheme == "https" else 80)
        prefix = url.path if url.path.endswith("/") else url.path + "/"
        self.base = "%sapi/v1/nni-trial/%s/%s/" % (prefix, urllib.parse.quote(experiment_id, safe=""),
                                                 urllib.parse.quote(keeper_id, safe=""))
        self.token = token
        self.manager_url = manager_url
        self.local = threading.local()

    def where(self):
        return "manager " + self.manager_url

    def handshake(self, hello):
        return self._send("POST", "handshake", to_json(hello), 15, True)

    def send_reports(self, reports, last_seq):
        answer = self._send("POST", "reports", '{"reports":[' + ",".join(reports) + "]}", 30, False)
        acked = answer.get("acked")
        if not is_whole(acked) or acked < 0:
            raise Unusable(200, "the manager's answer to a report batch has no acknowledged sequence: " + shorten(to_json(answer)))
        if acked > last_seq:
            raise Unusable(200, "the manager acknowledged report %d, but this keeper has sent reports only up to %d" % (acked, last_seq))
        return acked

    def commands(self, after, wait_millis):
        answer = self._send("GET", "commands?after=%d&waitMillis=%d" % (after, wait_millis), None, wait_millis / 1000.0 + 15, False)
        commands = answer.get("commands")
        if not isinstance(commands, list) or not all(
                isinstance(c, dict) and is_whole(c.get("id")) and isinstance(c.get("type"), str) for c in commands):
            raise Unusable(200, "the manager's command answer is not a list of numbered commands: " + shorten(to_json(answer)))
        return commands

    def _connection(self, timeout):
        """The calling thread's connection, and whether it was used before (the server may have closed it since)."""
        connection = getattr(self.local, "connection", None)
        reused = connection is not None
        if connection is None:
            kind = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
            connection = kind(self.host, self.port, timeout=5)
            connection.connect()
            self.local.connection = connection
        connection.sock.settimeout(timeout)
        return connection, reused

    def _exchange(self, method, path, data, headers, timeout):
        while True:
            connection, reused = self._connection(timeout)
            try:
                connection.request(method, path, body=data, headers=headers)
                response = connection.getresponse()
                text = response.read().decode("utf-8", "replace")
                if response.will_close:
                    self._drop()
                return response.status, text
            except (OSError, http.client.HTTPException):
                self._drop()
                if not reused:
                    raise
                # a kept-alive connection the server closed meanwhile: once more on a new one (the
                # manager applies a report batch once however often it arrives)

    def _send(self, method, route, body, timeout, handshake):
        headers = {"Authorization": "Bearer " + self.token}
        data = None
        if body is not None:
            data = body.encode("utf-8")
            headers["Content-Type"] = "application/json"
        status, text = self._exchange(method, self.base + route, data, headers, timeout)
        try:
            answer = json.loads(text)
            if not isinstance(answer, dict):
                raise ValueError("not an object")
        except ValueError:
            raise Unusable(status, "the manager answered %d with a body that is not JSON: %s" % (status, shorten(text)))
        if status == 200:
            return answer
        message = answer.get("error") if isinstance(answer.get("error"), str) else None
        if message is not None and (status in (401, 410) or (status == 409 and handshake)):
            # "stopped": the session ended after sending this keeper a stop it may not have taken yet
            raise Refused(message, answer.get("stopped") is True, status == 410)
        raise Unusable(status, "the manager answered %d: %s" % (status, message if message is not None else shorten(text)))

    def _drop(self):
        connection = getattr(self.local, "connection", None)
        self.local.connection = None
        if connection is not None:
            connection.close()


class FileChannel(object):
    """The keeper's side of the file transport (--channel DIR): the protocol of the HTTP routes carried by
    files in a channel folder the manager made on a storage both see, for workers that cannot open a
    connection to the manager. Files: hello.json/welcome.json (the handshake, with the token and a nonce
    the answer echoes; mode 0600), reports/<first>-<last>.json (report batches, deleted here once
    acknowledged), acked (the highest sequence the manager has durably), commands/<id>.json and
    commands.done (the manager's commands and which are handled, rewritten at each look as the keeper's
    sign of life), gone.json (refused for good). Every file
    is written under a temporary name and renamed. A batch whose acknowledgement does not come is written
    again, as one file from the first unacknowledged report on, after a pause doubling from 2 s to a minute;
    the manager applies each sequence once, whatever file brings it.

    The folder is looked at every POLL seconds while waiting: the standard library has no file
    notification, and on the network file systems this transport is for (a NAS mounted over NFS) the
    manager's writes come from another machine, which inotify would not report anyway."""
    POLL = 0.2
    HANDSHAKE_WAIT = 15.0
    ACK_WAIT = 10.0
    FIRST_RESEND = 2.0
    LAST_RESEND = 60.0

    def __init__(self, folder, token):
        self.folder = folder
        self.reports = os.path.join(folder, "reports")
        self.commands_dir = os.path.join(folder, "commands")
        if not os.path.isdir(self.reports) or not os.path.isdir(self.commands_dir):
            raise UsageError("--channel: %s is not a keeper channel folder (no reports/ and commands/ made by the manager)" % folder)
        self.token = token
        self.lock = threading.Lock()
        self.written = 0
        self.last_acked = -1
        self.acked_since = time.monotonic()
        self.resend_after = self.FIRST_RESEND

    def where(self):
        return "manager's channel " + self.folder

    def handshake(self, hello):
        self._refused_if_gone()
        welcome = os.path.join(self.folder, "welcome.json")
        try:
            os.remove(welcome)
        except FileNotFoundError:
            pass
        nonce = "%016x" % random.getrandbits(64)
        signed = dict(hello)
        signed["token"] = self.token
        signed["nonce"] = nonce
        self._write(os.path.join(self.folder, "hello.json"), to_json(signed), secret=True)
        answer = self._await(lambda: self._answer(welcome, nonce), self.HANDSHAKE_WAIT)
        if answer is None:
            self._refused_if_gone()
            raise OSError("no answer in %s within %d s" % (welcome, self.HANDSHAKE_WAIT))
        if isinstance(answer.get("error"), str):
            status = answer.get("status") if is_whole(answer.get("status")) else 0
            if status in (401, 409, 410):
                raise Refused(answer["error"], session_gone=status == 410)
            raise Unusable(status, "the manager answered %d: %s" % (status, answer["error"]))
        answer.pop("nonce", None)
        return answer

    def _answer(self, welcome, nonce):
        answer = self._read_json(welcome)
        return answer if answer is not None and answer.get("nonce") == nonce else None

    def send_reports(self, reports, last_seq):
        self._refused_if_gone()
        acked = self._acked()
        if acked < last_seq:
            now = time.monotonic()
            if self.written > acked and now - self.acked_since >= self.resend_after:
                # no acknowledgement for a while: write everything unacknowledged again, as one file
                self._delete_report_files(float("inf"))
                self.written = acked
                self.resend_after = min(self.LAST_RESEND, self.resend_after * 2)
                self.acked_since = now
            fresh = []
            first = 0
            for report in reports:
                seq = int(report[len('{"seq":'):report.index(",")])
                if seq > self.written and seq > acked:
                    first = first or seq
                    fresh.append(report)
            if fresh:
                self._write(os.path.join(self.reports, "%020d-%020d.json" % (first, last_seq)),
                            '{"reports":[' + ",".join(fresh) + "]}")
                self.written = last_seq
            self._await(lambda: self._acked() >= last_seq or os.path.exists(os.path.join(self.folder, "gone.json")),
                        self.ACK_WAIT)
            acked = self._acked()
        self._delete_report_files(acked)
        if acked < last_seq:
            self._refused_if_gone()  # acknowledged reports count even when the session ended right after
            raise OSError("reports up to %d are in %s; the manager has acknowledged only %d so far" % (last_seq, self.reports, acked))
        return last_seq

    def commands(self, after, wait_millis):
        # rewritten at every look, also unchanged: the manager takes it as this keeper's sign of life
        self._write(os.path.join(self.folder, "commands.done"), str(after))
        found = self._await(lambda: self._new_commands(after) or os.path.exists(os.path.join(self.folder, "gone.json")),
                            wait_millis / 1000.0)
        if isinstance(found, list) and found:
            return found
        self._refused_if_gone()  # the commands written before the session ended (a stop) are handled first
        return []

    def _new_commands(self, after):
        """The commands after `after` in id order, up to the first that cannot be read whole yet."""
        try:
            names = os.listdir(self.commands_dir)
        except OSError:
            return []
        ids = sorted(int(n[:20]) for n in names if len(n) == 25 and n.endswith(".json") and n[:20].isdigit() and int(n[:20]) > after)
        found = []
        for command_id in ids:
            command = self._read_json(os.path.join(self.commands_dir, "%020d.json" % command_id))
            if command is None or not is_whole(command.get("id")) or not isinstance(command.get("type"), str):
                break  # torn: commands are handled in order, so the rest waits for it
            found.append(command)
        return found

    def _acked(self):
        try:
            with open(os.path.join(self.folder, "acked"), "r") as f:
                acked = int(f.read().strip())
        except (OSError, ValueError):
            acked = max(0, self.last_acked)
        if acked != self.last_acked:
            self.last_acked = acked
            self.acked_since = time.monotonic()
            self.resend_after = self.FIRST_RESEND
        return acked

    def _delete_report_files(self, up_to):
        for name in os.listdir(self.reports):
            if len(name) == 46 and name.endswith(".json") and name[21:41].isdigit() and int(name[21:41]) <= up_to:
                try:
                    os.remove(os.path.join(self.reports, name))
                except FileNotFoundError:
                    pass

    def _refused_if_gone(self):
        # a session that ends writes its keepers' stop, then gone.json: this keeper may see the second before
        # it takes the first, and the refusal is then the end it was asked for
        gone = self._read_json(os.path.join(self.folder, "gone.json"))
        if gone is not None:
            raise Refused(str(gone.get("error")), self._stop_written(), True)

    def _stop_written(self):
        """Whether a stop is among the command files, taken or not (a torn file ahead of it does not hide it)."""
        try:
            names = os.listdir(self.commands_dir)
        except OSError:
            return False
        for name in names:
            if len(name) == 25 and name.endswith(".json") and name[:20].isdigit():
                command = self._read_json(os.path.join(self.commands_dir, name))
                if command is not None and command.get("type") == "stop":
                    return True
        return False

    def _await(self, condition, timeout):
        deadline = time.monotonic() + timeout
        while True:
            result = condition()
            if result:
                return result
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            time.sleep(min(left, self.POLL))

    @staticmethod
    def _read_json(path):
        try:
            with open(path, "r", encoding="utf-8") as f:
                value = json.loads(f.read())
            return value if isinstance(value, dict) else None
        except (OSError, ValueError):
            return None

    @staticmethod
    def _write(path, text, secret=False):
        """Writes under a temporary name and renames, so that the manager never reads half a file."""
        temporary = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
        try:
            os.remove(temporary)
        except FileNotFoundError:
            pass
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if secret else 0o644)
        with os.fdopen(descriptor, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temporary, path)


class Backoff(object):
    """Pauses between retries, and the give-up deadline of one outage. An unreachable manager is retried
    from 100 ms doubling to 2 s; one answering something unusable from 100 ms doubling to 30 s. Each pause
    is drawn between half and all of its step, so that many keepers do not retry in step."""
    FIRST = 0.1
    UNREACHABLE_CAP = 2.0
    UNUSABLE_CAP = 30.0

    def __init__(self, give_up_seconds):
        self.give_up = give_up_seconds
        self.step = self.FIRST
        self.since = None

    def pause(self, what, cause):
        now = time.monotonic()
        unusable = isinstance(cause, Unusable)
        if self.since is None:
            self.since = now
            log("%s: %s%s; retrying" % (what, "" if unusable else "manager not reachable: ", cause))
        if now - self.since > self.give_up:
            return False
        cap = self.UNUSABLE_CAP if unusable else self.UNREACHABLE_CAP
        step = min(self.step, cap)
        self.step = min(cap, self.step * 2)
        time.sleep(step / 2 + random.random() * (step - step / 2))
        return True

    def reset(self):
        if self.since is not None:
            log("manager answering again")
        self.since = None
        self.step = self.FIRST


class RequestStats(object):
    """How the report batches went, printed when the keeper ends."""

    def __init__(self):
        self.latencies = []
        self.reports = 0
        self.largest = 0
        self.lock = threading.Lock()

    def record(self, seconds, size):
        with self.lock:
            self.reports += size
            self.largest = max(self.largest, size)
            if len(self.latencies) < 1 << 20:
                self.latencies.append(seconds)

    def summary(self):
        with self.lock:
            if not self.latencies:
                return "report batches: none sent"
            ordered = sorted(self.latencies)
            p99 = ordered[max(0, -(-len(ordered) * 99 // 100) - 1)]
            return ("report batches: %d reports in %d requests (largest %d); request latency p50 %.2f ms, p99 %.2f ms, max %.2f ms"
                    % (self.reports, len(ordered), self.largest, ordered[len(ordered) // 2] * 1e3, p99 * 1e3, ordered[-1] * 1e3))


# ---------------------------------------------------------------------------------------------
# trials

METRIC_MARKER = "NNISDK_MEb'"


def failure(code, stderr_path, lines=5, characters=600):
    """Why a trial failed, as the Java keeper says it: its exit code and the last lines of its stderr."""
    tail = ""
    try:
        with open(stderr_path, "rb") as stderr:
            stderr.seek(0, os.SEEK_END)
            start = max(0, stderr.tell() - 8192)
            stderr.seek(start)
            kept = [line.strip() for line in stderr.read().decode("utf-8", "replace").splitlines() if line.strip()]
        if start > 0 and kept:
            kept = kept[1:]  # the first line read may be cut
        tail = " | ".join(kept[-lines:])
        if len(tail) > characters:
            tail = "..." + tail[-characters:]
    except OSError:
        pass
    return "exit code %d%s" % (code, ": " + tail if tail else "")


def metric_of_stdout_line(line):
    start = line.find(METRIC_MARKER)
    if start < 0:
        return None
    begin = start + len(METRIC_MARKER)
    end = line.rfind("'")
    return None if end < begin else line[begin:end]


class MetricsFileTail(object):
    """Reads the frames appended to .nni/metrics (ME + 6-digit byte length + JSON + newline) since the last call."""

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self.lock = threading.Lock()

    def read(self):
        metrics = []
        if not os.path.exists(self.path):
            return metrics
        with open(self.path, "rb") as f:
            length = os.fstat(f.fileno()).st_size
            while self.offset + 8 <= length:
                f.seek(self.offset)
                head = f.read(8)
                digits = head[2:8]
                if not digits.isdigit():
                    raise ValueError("%s: corrupt metric frame at byte %d (header %r)" % (self.path, self.offset, head))
                size = int(digits)
                if self.offset + 8 + size > length:
                    break
                text = f.read(size).decode("utf-8", "replace")
                metrics.append(text[:-1] if text.endswith("\n") else text)
                self.offset += 8 + size
        return metrics


class TrialProcess(object):
    """One trial: its directory prepared (code unpacked into code/, parameter.cfg written), its command run by
    bash in a session of its own, stdout kept in 'stdout' and scanned for metrics, .nni/metrics followed, and
    'started', 'metric' and finally 'ended' reports spooled in that order."""

    def __init__(self, keeper, trial_id, sequence_id, gpu_indices, directory):
        self.keeper = keeper
        self.trial_id = trial_id
        self.sequence_id = sequence_id
        self.gpu_indices = gpu_indices
        self.directory = directory
        self.process = None
        self.killed = False
        self.ended = threading.Event()
        self.exit_code = None
        self.on_end = []

    def start(self, parameter_value, parameter_index):
        options = self.keeper.options
        code = os.path.join(self.directory, "code")
        output = os.path.join(self.directory, "nnioutput") if options.runner else self.directory
        try:
            os.makedirs(os.path.join(self.directory, ".nni"), exist_ok=True)
            os.makedirs(output, exist_ok=True)
            CodeArchive(options.code_archive, options.max_code_bytes, options.max_code_entries).extract(code)
            self.write_parameters(parameter_value, parameter_index)
            command = options.command
            if self.gpu_indices is not None:
                command = "CUDA_VISIBLE_DEVICES=%s %s" % (self.gpu_indices or "-1", command)
            env = dict(os.environ)
            env.pop(TOKEN_VARIABLE, None)
            env.update({"NNI_PLATFORM": options.platform, "NNI_EXP_ID": options.experiment_id, "NNI_TRIAL_JOB_ID": self.trial_id,
                        "NNI_SYS_DIR": self.directory, "NNI_OUTPUT_DIR": output, "NNI_TRIAL_SEQ_ID": str(self.sequence_id),
                        "NNI_CODE_DIR": code, "MULTI_PHASE": "true" if options.runner else "false"})
            if options.runner:
                env["REUSE_MODE"] = "true"
            with open(os.path.join(self.directory, "stderr"), "wb") as stderr:
                self.process = subprocess.Popen(["/bin/bash", "-c", command], cwd=code, env=env, stdin=subprocess.DEVNULL,
                                                stdout=subprocess.PIPE, stderr=stderr, start_new_session=True)
        except Exception as e:  # whatever went wrong, the manager hears of it: a trial never just vanishes
            log("trial %s could not start: %s" % (self.trial_id, e))
            self.keeper.report({"kind": "ended", "trial": self.trial_id, "code": -1, "time": now_millis(),
                                "error": "the keeper could not start the trial: %s" % e})
            self._finish(-1)
            return
        self.keeper.report({"kind": "started", "trial": self.trial_id, "time": now_millis(), "dir": self.directory})
        tail = MetricsFileTail(os.path.join(self.directory, ".nni", "metrics"))
        pump = threading.Thread(target=self._pump_stdout, name="stdout-" + self.trial_id, daemon=True)
        pump.start()
        threading.Thread(target=self._watch, args=(pump, tail), name="trial-" + self.trial_id, daemon=True).start()

    def _watch(self, pump, tail):
        while self.process.poll() is None:
            self._forward_file_metrics(tail)
            try:
                self.process.wait(METRICS_FILE_SECONDS)
            except subprocess.TimeoutExpired:
                pass
        pump.join()
        self._forward_file_metrics(tail)
        code = self.process.returncode
        code = 128 - code if code < 0 else code  # killed by a signal: as the shell and the Java keeper report it
        ended = {"kind": "ended", "trial": self.trial_id, "code": code, "time": now_millis(), "killed": self.killed}
        if code != 0 and not self.killed:
            ended["error"] = failure(code, os.path.join(self.directory, "stderr"))
        try:
            self.keeper.report(ended)
        except OSError as e:
            log("trial %s: its end was not spooled: %s" % (self.trial_id, e))
        self._finish(code)

    def _finish(self, code):
        self.exit_code = code
        self.ended.set()
        for callback in self.on_end:
            callback(self, code)

    def _forward_file_metrics(self, tail):
        with tail.lock:
            try:
                for metric in tail.read():
                    self.keeper.report({"kind": "metric", "trial": self.trial_id, "line": metric})
            except (OSError, ValueError) as e:
                log("trial %s: %s" % (self.trial_id, e))

    def _pump_stdout(self):
        try:
            with open(os.path.join(self.directory, "stdout"), "wb") as copy:
                for raw in iter(self.process.stdout.readline, b""):
                    line = raw.rstrip(b"\n").rstrip(b"\r")
                    copy.write(line + b"\n")
                    copy.flush()
                    metric = metric_of_stdout_line(line.decode("utf-8", "replace"))
                    if metric is not None:
                        self.keeper.report({"kind": "metric", "trial": self.trial_id, "line": metric})
        except OSError as e:
            log("trial %s: reading its output failed: %s" % (self.trial_id, e))
        finally:
            self.process.stdout.close()

    def write_parameters(self, value, index):
        """Writes parameter.cfg (index 0) or parameter_<k>.cfg completely, then renames it in place."""
        name = "parameter.cfg" if index == 0 else "parameter_%d.cfg" % index
        temporary = os.path.join(self.directory, name + ".tmp")
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(value)
        os.replace(temporary, os.path.join(self.directory, name))

    def tail(self, name, max_bytes):
        if name not in ("stdout", "stderr", "trial.log"):
            return ""
        folder = os.path.join(self.directory, "nnioutput") if name == "trial.log" and self.keeper.options.runner else self.directory
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            return ""
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            f.seek(max(0, size - max_bytes))
            return f.read().decode("utf-8", "replace")

    def kill(self):
        """SIGTERM to the trial's process group, SIGKILL after the grace period if it is still there. Returns at once."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        self.killed = True
        self._signal(signal.SIGTERM)

        def force():
            if process.poll() is None:
                log("trial %s did not end within %d s of SIGTERM; sending SIGKILL" % (self.trial_id, self.keeper.options.kill_grace_seconds))
                self._signal(signal.SIGKILL)
        timer = threading.Timer(self.keeper.options.kill_grace_seconds, force)
        timer.daemon = True
        timer.start()

    def kill_and_wait(self):
        """SIGTERM to the group, up to the grace period for the trial to end, then SIGKILL to whatever is left."""
        process = self.process
        if process is None:
            return
        self.killed = True
        if process.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                process.wait(self.keeper.options.kill_grace_seconds)
            except subprocess.TimeoutExpired:
                pass
        self._signal(signal.SIGKILL)  # the group may outlive its leader
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            pass

    def _signal(self, number):
        try:
            os.killpg(self.process.pid, number)
        except OSError:
            pass  # the group is gone


# ---------------------------------------------------------------------------------------------
# the keeper

def gpu_report(nvidia_smi):
    """The worker's GPUs as nvidia-smi reports them (a 'gpu' report), or None without a working nvidia-smi."""
    try:
        result = subprocess.run([nvidia_smi, "--query-gpu=index,utilization.gpu,memory.total,memory.used,memory.free",
                                 "--format=csv,noheader,nounits"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None

    def number(field):
        field = field.strip()
        return int(field) if field.isdigit() else None
    gpus = []
    for line in result.stdout.decode("utf-8", "replace").splitlines():
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) < 5:
            return None
        gpus.append({"index": number(fields[0]), "gpuUtil": number(fields[1]), "gpuMemTotal": number(fields[2]),
                     "gpuMemUsed": number(fields[3]), "gpuMemFree": number(fields[4])})
    return {"kind": "gpu", "time": now_millis(), "gpuCount": len(gpus), "gpuInfos": gpus}


class Keeper(object):
    """One keeper process: the handshake, a sender draining the spool in batches, a long-poll loop for the
    manager's commands, and the trials. Trial mode runs its one trial and exits with its code once every
    report is acknowledged; runner mode says 'ready' and runs the trials the manager sends until 'stop'."""

    def __init__(self, options):
        self.options = options
        if options.channel is not None:
            self.manager = FileChannel(options.channel, options.token)
        else:
            self.manager = ManagerClient(options.manager_url, options.experiment_id, options.keeper_id, options.token)
        self.spool = Spool(os.path.join(options.work_directory, ".keeper", options.keeper_id), options.spool_limit_bytes)
        self.trials = {}
        # every trial started here, running or ended: a manager restarted after a crash sends
        # new-trial again for a trial it cannot know the keeper got, and it must not run twice
        self.started_trials = set()
        self.trials_lock = threading.Lock()
        self.stats = RequestStats()
        self.finished = threading.Event()
        self.ending = threading.Lock()  # fail and finish decide the end one at a time
        self.exit_code = 0
        self.stopping = False
        self.abandoned = False  # refused for good or given up: nothing more will be delivered (a trial may exit 3 or 4 itself)
        self.told_to_stop = False  # a refusal after the manager's stop is the session it stopped for ending
        self.session_gone = False  # refused with 410: the session ended (see fail)
        self.trial_end_code = None  # trial mode: the trial's exit code once its end is reported (spooled)

    def report(self, report):
        if not self.options.runner and report.get("kind") == "ended" and is_whole(report.get("code")):
            self.trial_end_code = report["code"]  # before the end can be sent, so before any answer to it
        self.spool.append(report)

    def run(self):
        try:
            return self._run()
        finally:
            log(self.stats.summary())

    def _run(self):
        answer = self.handshake()
        if answer is None:
            return self.exit_code
        threading.Thread(target=self.send_loop, name="report-sender", daemon=True).start()
        threading.Thread(target=self.command_loop, name="command-poll", daemon=True).start()
        if self.options.runner:
            self.report({"kind": "ready", "environment": self.options.keeper_id, "time": now_millis(), "keeperVersion": VERSION})
            if gpu_report("nvidia-smi") is not None:
                threading.Thread(target=self.report_gpus, name="gpu-report", daemon=True).start()
        else:
            trial = answer.get("trial")
            if not isinstance(trial, dict):
                return self.fail(EXIT_REFUSED, "the manager's handshake answer has no trial to run for " + self.options.keeper_id)
            process = self.start_trial(self.options.keeper_id, trial, self.options.work_directory)
            process.on_end.append(lambda p, code: self.finish(code))
            if process.ended.is_set():
                self.finish(process.exit_code)
        while not self.finished.wait(1):
            pass
        self.stopping = True
        with self.trials_lock:
            running = list(self.trials.values())
        if not self.abandoned:
            for trial in running:
                trial.kill()
            pending = self.spool.pending_count()
            if pending:
                log("waiting up to %d s for the manager to acknowledge %d reports" % (self.options.give_up_seconds, pending))
            # a refusal that comes while we wait abandons the spool, which ends this wait at once
            if not self.spool.await_empty(self.options.give_up_seconds) and not self.abandoned:
                log("gave up: %d reports were never acknowledged; they stay in %s" % (self.spool.pending_count(),
                                                                                     os.path.join(self.options.work_directory, ".keeper")))
        if self.abandoned:
            # the manager will take nothing more from this keeper: its trials must not run on unseen
            for trial in running:
                trial.kill_and_wait()
            log("%d reports were not delivered; they stay in %s" % (self.spool.pending_count(),
                                                                  os.path.join(self.options.work_directory, ".keeper")))
        self.spool.close()
        return self.exit_code

    def handshake(self):
        hello = {"keeperVersion": VERSION, "protocol": PROTOCOL, "mode": self.options.mode, "platform": self.options.platform,
                 "runtime": "python " + ".".join(str(n) for n in sys.version_info[:3])}
        backoff = Backoff(self.options.give_up_seconds)
        while True:
            try:
                answer = self.manager.handshake(hello)
                protocol = answer.get("protocol")
                if not is_whole(protocol):
                    raise Unusable(200, "the manager's handshake answer names no protocol")
                if protocol != PROTOCOL:
                    self.fail(EXIT_REFUSED, "manager %s speaks trial protocol %s, but trial keeper %s speaks protocol %d;"
                              " run the keeper this manager ships (nni.manager's nni-trialkeeper.py)"
                              % (answer.get("managerVersion"), protocol, VERSION, PROTOCOL))
                    return None
                log("trial keeper %s (protocol %d, Python %s) connected to manager %s"
                    % (VERSION, PROTOCOL, sys.version.split()[0], answer.get("managerVersion")))
                return answer
            except Refused as e:
                self.refused(e, "the manager refused trial keeper %s (protocol %d): %%s" % (VERSION, PROTOCOL))
                return None
            except (Unusable, OSError, http.client.HTTPException) as e:
                if not backoff.pause("handshake", e):
                    self.fail(EXIT_UNREACHABLE, self.give_up_message(""))
                    return None

    def send_loop(self):
        backoff = Backoff(self.options.give_up_seconds)
        batch_bytes = BATCH_BYTES
        while not (self.stopping and self.spool.pending_count() == 0) and not self.abandoned:
            batch, last_seq = self.spool.peek(BATCH_REPORTS, batch_bytes, 0.5)
            if not batch:
                if self.spool.closed:
                    return
                continue
            try:
                began = time.monotonic()
                acked = self.manager.send_reports(batch, last_seq)
                self.stats.record(time.monotonic() - began, len(batch))
                self.spool.acknowledge(acked)
                if acked < last_seq:
                    raise Unusable(200, "the manager applied reports only up to %d of %d" % (acked, last_seq))
                backoff.reset()
            except Refused as e:
                self.refused(e, "the manager refused this keeper's reports: %s")
                return
            except (Unusable, OSError, http.client.HTTPException) as e:
                if isinstance(e, Unusable) and e.status == 413 and batch_bytes > 1:
                    batch_bytes = max(1, batch_bytes // 2)  # the manager's body limit is lower than ours
                if not backoff.pause("sending reports", e):
                    self.fail(EXIT_UNREACHABLE, self.give_up_message("; %d reports stay in the spool" % self.spool.pending_count()))
                    return

    def command_loop(self):
        backoff = Backoff(self.options.give_up_seconds)
        after = 0
        while not self.stopping:
            try:
                commands = self.manager.commands(after, POLL_MILLIS)
                backoff.reset()
            except Refused as e:
                self.refused(e, "the manager refused this keeper's command poll: %s")
                return
            except (Unusable, OSError, http.client.HTTPException) as e:
                if not backoff.pause("polling commands", e):
                    self.fail(EXIT_UNREACHABLE, self.give_up_message(""))
                    return
                continue
            for command in commands:
                after = max(after, command["id"])
                try:
                    self.handle(command)
                except Exception as e:
                    log("command %s failed: %s" % (command.get("type"), e))

    def handle(self, command):
        kind = command["type"]
        trial_id = command.get("trial")
        with self.trials_lock:
            trial = self.trials.get(trial_id) if trial_id is not None else None
            first_time = kind == "new-trial" and trial_id not in self.started_trials
            if first_time:
                self.started_trials.add(trial_id)
        if kind == "new-trial":
            if first_time:
                self.start_trial(trial_id, command, os.path.join(self.options.work_directory, "trials", trial_id))
        elif kind == "kill":
            if trial is not None:
                trial.kill()
        elif kind == "send-parameter":
            parameter = command["parameter"]
            if trial is not None:
                trial.write_parameters(parameter["value"], parameter["index"])
        elif kind == "log-tail":
            name = str(command.get("file"))
            text = None if trial is None else trial.tail(name, command.get("maxBytes", 65536))
            self.report({"kind": "log", "trial": trial_id, "file": name, "request": command.get("request"), "text": text})
        elif kind == "stop":
            self.told_to_stop = True
            self.finish(0)
        else:
            log("ignoring unknown command '%s'" % kind)

    def start_trial(self, trial_id, description, directory):
        parameter = description["parameter"]
        process = TrialProcess(self, trial_id, description.get("sequenceId", -1), description.get("gpuIndices"), directory)
        with self.trials_lock:
            self.trials[trial_id] = process

        def forget(trial, code):
            with self.trials_lock:
                self.trials.pop(trial_id, None)
        process.on_end.append(forget)
        process.start(parameter["value"], parameter.get("index", 0))
        return process

    def report_gpus(self):
        while not self.stopping:
            gpus = gpu_report("nvidia-smi")
            if gpus is not None and not self.stopping:
                try:
                    self.report(gpus)
                except OSError as e:
                    log("GPU report not spooled: %s" % e)
            if self.finished.wait(GPU_REPORT_SECONDS):
                return

    def give_up_message(self, more):
        return "%s unreachable or not answering usably for %d s; giving up%s" % (
            self.manager.where(), self.options.give_up_seconds, more)

    def fail(self, code, message):
        """Ends this keeper for good (refused: 3, or 0 after a stop command; unreachable: 4), whatever ended it
        before. Everything the main thread reads is set before the event is set and before the spool ends a wait
        for acknowledgements, so that it can never take the orderly path of a keeper that was refused."""
        stopped_as_told = code == EXIT_REFUSED and self.told_to_stop
        with self.ending:
            # trial mode: the session may end as soon as it has applied the trial's end, before this keeper
            # sees the acknowledgement; its trial ran to its end, and the job's outcome is the trial's
            trial_code = self.trial_end_code if code == EXIT_REFUSED and self.session_gone and not self.abandoned else None
            log(message + ("; its trial had ended with exit code %d, which stands" % trial_code if trial_code is not None
                           else "; it had told this keeper to stop, so this is the end it asked for" if stopped_as_told else ""))
            # a session that ends stops its keepers and forgets them at once: refused then, a keeper has done
            # what it was told, and exits 0 (a cluster counts a job that exits non-zero as failed)
            self.exit_code = trial_code if trial_code is not None else 0 if stopped_as_told else code
            self.abandoned = True
            self.stopping = True
            self.spool.abandon()
            self.finished.set()
        return self.exit_code

    def refused(self, refusal, what):
        """Refused for good: ends this keeper, with 0 when the manager had told it to stop before, and with its trial's
        code when the trial had ended and the session is gone (410) (see fail)."""
        if refusal.after_stop:
            self.told_to_stop = True
        if refusal.session_gone:
            self.session_gone = True
        self.fail(EXIT_REFUSED, what % refusal)

    def finish(self, code):
        """Ends this keeper in order with code, unless it has ended already."""
        with self.ending:
            if not self.finished.is_set():
                self.exit_code = code
                self.finished.set()


def main(args):
    if len(args) == 1 and args[0] in ("--help", "-h"):
        sys.stdout.write(USAGE.replace("%1$s", INVOCATION))
        return 0
    if len(args) == 1 and args[0] == "--version":
        print(version_line())
        return 0
    try:
        options = Options(args, os.environ)
        keeper = Keeper(options)
    except UsageError as e:
        log("nni-trialkeeper %s: %s (--help shows the usage)" % (VERSION, e))
        return EXIT_USAGE
    return keeper.run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
