"""The runtime image of the Docker sandbox backend, built offline from this host's own files.

No registry is needed: the image's root filesystem is assembled from files already on the host
and handed to `docker import`. It holds a minimal Debian userland (sh, bash, coreutils, grep,
sed, awk, find, diff, tar, gzip and their shared libraries) and, in the default `embed` mode,
this interpreter (the stdlib without tests/tk/idle, and only `mcp` and its dependencies from
site-packages, with their compiled .pyc files so a read-only container starts fast). The
interpreter keeps its host path (`sys.base_prefix`), so the same `python3` and
`Shell`'s PATH work inside as outside.

There is no `bind` mode any more (it bind-mounted the host's interpreter prefix into the container
at run time for a faster build): that prefix holds site-packages, and with EnvCraft installed
normally every agent command could grep the packaged task store and read each task's gold
answers. Hiding site-packages again, package by package, would have to track every layout an
installed distribution can have, and one miss reopens the hole; `embed` copies exactly the
server's requirement closure and nothing else.

The tag is `envcraft/runtime:<mode>-<hash>`, the hash taken over every input file's path, size,
mtime and mode (plus /etc/ld.so.cache, which changes whenever a shared library is installed or
upgraded): the image is rebuilt only when an input changes. Users with registry access can
build the ordinary image from registry/Dockerfile instead and pass it as `DockerLauncher(image=...)`.

    python -m envcraft.registry.docker_image [--force]   # build, print tag and time
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import py_compile
import re
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

BUILDER_VERSION = "1"  # the builder's own source is hashed too: edits rebuild
REPOSITORY = "envcraft/runtime"
ROOT_DISTRIBUTION = "mcp"  # the server needs mcp and what it pulls in; the env code is stdlib only
MODES = ("embed",)
REMOVED_MODES = {"bind": "bind mode was removed: it mounted the host's interpreter prefix, whose site-packages (an "
                         "installed EnvCraft's task store, gold answers included) every agent command could read; "
                         "use the default embed mode"}

# Debian packages whose files make the userland an agent's shell commands expect.
PACKAGES = ("dash", "bash", "coreutils", "grep", "sed", "findutils", "diffutils", "mawk", "tar", "gzip", "libc6")
# Always wanted, and what is used instead of PACKAGES on a host without dpkg.
COMMANDS = ("sh", "bash", "env", "ls", "cat", "head", "tail", "wc", "sort", "uniq", "cut", "tr", "grep", "sed",
            "awk", "find", "xargs", "diff", "echo", "printf", "date", "mkdir", "cp", "mv", "rm", "touch", "tee",
            "basename", "dirname", "pwd", "stat", "du", "chmod", "ln", "readlink", "realpath", "sleep", "true",
            "false", "test", "id", "uname", "tar", "gzip", "seq", "nl", "expr", "comm", "join", "paste", "md5sum",
            "sha256sum", "yes", "timeout")
SKIP_PREFIXES = ("/usr/share/", "/usr/lib/x86_64-linux-gnu/gconv/", "/usr/lib/x86_64-linux-gnu/audit/",
                 "/etc/init.d/", "/etc/cron", "/etc/logrotate.d/", "/var/")
# Parts of the stdlib a sandboxed MCP server and its shell never use.
STDLIB_SKIP = {"test", "tests", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "pydoc_data",
               "site-packages", "dist-packages", "__phello__"}
STDLIB_SKIP_FILES = re.compile(r"^(_tkinter|_test|xxlimited|_xxtest|_ctypes_test).*\.so$|\.opt-[12]\.pyc$")

ETC_PASSWD = "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
ETC_GROUP = "root:x:0:\nnogroup:x:65534:\n"


@dataclass(frozen=True)
class RuntimeImage:
    """What the launcher needs to know about a built image."""

    tag: str
    mode: str
    python: str  # the interpreter to run inside the container (same path as on the host)
    python_bin: str  # its bin folder, put on PATH
    build_seconds: float = 0.0  # 0 when the image was already there

    @property
    def path(self) -> str:
        return f"/opt/env/bin:{self.python_bin}:/usr/local/bin:/usr/bin:/bin"


@dataclass
class _Entry:
    kind: str  # "file", "link", "dir", "data"
    source: str = ""  # host path (file) or link target (link)
    data: bytes = b""
    mode: int = 0o644


@dataclass
class _Plan:
    """Everything that goes into the root filesystem, keyed by its path in the image."""

    entries: dict[str, _Entry] = field(default_factory=dict)
    scan: set[str] = field(default_factory=set)  # ELF files whose shared libraries must be in the image
    compiled: dict[str, str] = field(default_factory=dict)  # image path of a .pyc -> host .py it compiles

    def add_dirs(self, path: str) -> None:
        parent = os.path.dirname(path)
        while parent not in ("/", "") and parent not in self.entries:
            self.entries[parent] = _Entry("dir", mode=0o755)
            parent = os.path.dirname(parent)

    def add_host(self, path: str) -> None:
        """Add a host file at its canonical path, following symlinks (each link and its target)."""
        seen = 0
        while path and seen < 40:
            seen += 1
            path = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
            if path in self.entries or not os.path.lexists(path):
                return
            if os.path.islink(path):
                target = os.readlink(path)
                self.add_dirs(path)
                self.entries[path] = _Entry("link", target)
                path = os.path.normpath(os.path.join(os.path.dirname(path), target))
                continue
            if os.path.isdir(path):
                self.add_dirs(path + "/x")
                return
            if _is_elf(path):
                self.scan.add(path)
            self.add_dirs(path)
            self.entries[path] = _Entry("file", path, mode=os.stat(path).st_mode & 0o7777)
            return

    def add_data(self, path: str, data: str | bytes, mode: int = 0o644) -> None:
        self.add_dirs(path)
        self.entries[path] = _Entry("data", data=data.encode() if isinstance(data, str) else data, mode=mode)

    def add_dir(self, path: str, mode: int = 0o755) -> None:
        self.add_dirs(path + "/x")
        self.entries[path] = _Entry("dir", mode=mode)


def _is_elf(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


# ---------------------------------------------------------------- what goes in


def _package_files(package: str) -> list[str] | None:
    lists = glob.glob(f"/var/lib/dpkg/info/{package}.list") + glob.glob(f"/var/lib/dpkg/info/{package}:*.list")
    if not lists:
        return None
    files = []
    for listing in lists:
        files += [line for line in Path(listing).read_text().splitlines() if line and line != "/."]
    return files


def _userland(plan: _Plan) -> None:
    for link in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):
        if os.path.islink(f"/{link}"):  # merged /usr: keep the same layout
            plan.entries[f"/{link}"] = _Entry("link", os.readlink(f"/{link}"))
    for package in PACKAGES:
        for path in _package_files(package) or []:
            if not path.startswith(SKIP_PREFIXES) and not os.path.isdir(path):
                plan.add_host(path)
    for command in COMMANDS:
        for folder in ("/usr/bin", "/bin", "/usr/sbin"):
            if os.path.exists(f"{folder}/{command}"):
                plan.add_host(f"{folder}/{command}")
                break
    plan.add_data("/etc/passwd", ETC_PASSWD)
    plan.add_data("/etc/group", ETC_GROUP)
    if os.path.exists("/etc/ld.so.cache"):
        plan.add_host("/etc/ld.so.cache")
    for folder in ("/workspace", "/opt/env", "/opt/envcraft_runtime", "/proc", "/sys", "/dev", "/root", "/usr/local/bin"):
        plan.add_dir(folder)
    plan.add_dir("/tmp", 0o1777)


def _requirement_closure(root: str) -> list[importlib.metadata.Distribution]:
    """`root` and every distribution it requires (extras followed, markers evaluated here)."""
    try:
        from packaging.requirements import Requirement
    except ImportError:  # pragma: no cover - pip always vendors it
        from pip._vendor.packaging.requirements import Requirement  # type: ignore[no-redef]

    found: dict[str, importlib.metadata.Distribution] = {}
    todo: list[tuple[str, frozenset[str]]] = [(root, frozenset())]
    done: set[tuple[str, frozenset[str]]] = set()
    while todo:
        name, extras = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if (key, extras) in done:
            continue
        done.add((key, extras))
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        found[key] = dist
        for text in dist.requires or []:
            req = Requirement(text)
            wanted = req.marker is None or any(req.marker.evaluate({"extra": e}) for e in (extras or {""}))
            if wanted:
                todo.append((req.name, frozenset(req.extras)))
    return sorted(found.values(), key=lambda d: d.metadata["Name"].lower())


def _python(plan: _Plan) -> RuntimeImage:
    """The interpreter, copied into the image: its stdlib and the server's requirement closure, nothing else."""
    base = os.path.realpath(sys.base_prefix)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    stdlib = os.path.realpath(sysconfig.get_paths(vars={"base": base, "installed_base": base})["stdlib"])
    image_site = os.path.join(stdlib, "site-packages")
    executable = os.path.join(base, "bin", version)
    plan.add_host(executable)
    for name in ("python3", "python"):
        if os.path.lexists(os.path.join(base, "bin", name)):
            plan.add_host(os.path.join(base, "bin", name))
    for library in glob.glob(os.path.join(base, "lib", "libpython*.so*")):
        plan.add_host(library)
    for folder, dirs, files in os.walk(stdlib):
        rel = os.path.relpath(folder, stdlib)
        dirs[:] = sorted(d for d in dirs if d not in STDLIB_SKIP and not (rel == "." and d.startswith("config-")))
        for name in sorted(files):
            if not STDLIB_SKIP_FILES.search(name):
                plan.add_host(os.path.join(folder, name))
    # site-packages: the server's own requirement closure only
    for dist in _requirement_closure(ROOT_DISTRIBUTION):
        site = os.path.realpath(str(dist.locate_file("")))
        for record in dist.files or []:
            source = os.path.normpath(os.path.join(site, str(record)))
            if not source.startswith(site + os.sep) or not os.path.isfile(source):
                continue  # console scripts and the like live outside site-packages
            _add_python_file(plan, source, os.path.join(image_site, os.path.relpath(source, site)))
    plan.entries["/usr/local/bin/python3"] = _Entry("link", executable)
    plan.entries["/usr/local/bin/python"] = _Entry("link", executable)
    return RuntimeImage("", "embed", executable, os.path.join(base, "bin"))


def _add_python_file(plan: _Plan, source: str, target: str) -> None:
    plan.add_dirs(target)
    plan.entries[target] = _Entry("file", source, mode=os.stat(source).st_mode & 0o7777)
    if _is_elf(source):
        plan.scan.add(source)
    if source.endswith(".py"):  # a read-only container cannot write its own .pyc: ship them
        cached = importlib.util.cache_from_source(target)
        if cached not in plan.entries:
            host_cached = importlib.util.cache_from_source(source)
            plan.add_dirs(cached)
            if _pyc_fresh(host_cached, source):
                plan.entries[cached] = _Entry("file", host_cached)
            else:
                plan.compiled[cached] = source


def _pyc_fresh(pyc: str, source: str) -> bool:
    try:
        with open(pyc, "rb") as f:
            header = f.read(16)
        st = os.stat(source)
    except OSError:
        return False
    return (len(header) == 16 and header[:4] == importlib.util.MAGIC_NUMBER
            and int.from_bytes(header[4:8], "little") == 0
            and int.from_bytes(header[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == st.st_size & 0xFFFFFFFF)


def _plan(mode: str) -> tuple[_Plan, RuntimeImage]:
    if mode not in MODES:
        raise ValueError(REMOVED_MODES.get(mode, f"image mode {mode!r}: use one of {', '.join(MODES)}"))
    plan = _Plan()
    _userland(plan)
    return plan, _python(plan)


def _fingerprint(plan: _Plan, mode: str) -> str:
    digest = hashlib.sha256(f"{BUILDER_VERSION}\0{mode}\0{sys.version}\0".encode())
    digest.update(Path(__file__).read_bytes())  # a change to this builder is a change of image
    for path in sorted(set(plan.entries) | plan.scan | set(plan.compiled.values()) | {"/etc/ld.so.cache"}):
        entry = plan.entries.get(path)
        digest.update(path.encode() + b"\0")
        if entry is not None and entry.kind in ("data", "dir", "link"):
            digest.update(f"{entry.kind}:{entry.mode}:{entry.source}:".encode() + entry.data + b"\0")
            continue
        source = entry.source if entry is not None else path
        try:
            st = os.lstat(source)
            digest.update(f"{st.st_size}:{st.st_mtime_ns}:{st.st_mode}\0".encode())
        except OSError:
            digest.update(b"missing\0")
    return digest.hexdigest()[:16]


def _shared_libraries(files: Iterable[str]) -> set[str]:
    """Every shared library the ELF files load (ldd prints the transitive closure)."""
    libraries: set[str] = set()
    files = sorted(files)
    for start in range(0, len(files), 200):
        result = subprocess.run(["ldd", *files[start:start + 200]], capture_output=True, text=True)
        for line in result.stdout.splitlines():
            match = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
            if match:
                libraries.add(match.group(1))
    return libraries


# ---------------------------------------------------------------- building


def _tar_stream(plan: _Plan) -> Iterator[bytes]:
    """The root filesystem as a tar, produced by a thread into a pipe and read here in chunks."""
    read_fd, write_fd = os.pipe()
    failure: list[BaseException] = []

    def produce() -> None:
        try:
            with os.fdopen(write_fd, "wb", buffering=1 << 20) as out, \
                    tarfile.open(fileobj=out, mode="w|", format=tarfile.PAX_FORMAT) as tar, \
                    tempfile.TemporaryDirectory(prefix="envcraft-pyc-") as scratch:
                for path in sorted(set(plan.entries) | set(plan.compiled)):
                    info = tarfile.TarInfo(path.lstrip("/"))
                    info.uid = info.gid = 0
                    info.uname = info.gname = "root"
                    if path in plan.compiled:
                        pyc = os.path.join(scratch, "x.pyc")
                        py_compile.compile(plan.compiled[path], cfile=pyc, doraise=True)
                        info.size, info.mode, info.mtime = os.path.getsize(pyc), 0o644, int(time.time())
                        with open(pyc, "rb") as f:
                            tar.addfile(info, f)
                        continue
                    entry = plan.entries[path]
                    if entry.kind == "dir":
                        info.type, info.mode = tarfile.DIRTYPE, entry.mode
                        tar.addfile(info)
                    elif entry.kind == "link":
                        info.type, info.linkname, info.mode = tarfile.SYMTYPE, entry.source, 0o777
                        tar.addfile(info)
                    elif entry.kind == "data":
                        info.size, info.mode = len(entry.data), entry.mode
                        tar.addfile(info, _BytesReader(entry.data))
                    else:
                        st = os.stat(entry.source)
                        info.size, info.mode, info.mtime = st.st_size, entry.mode, int(st.st_mtime)
                        with open(entry.source, "rb") as f:
                            tar.addfile(info, f)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the consumer
            failure.append(exc)

    producer = threading.Thread(target=produce, name="envcraft-rootfs", daemon=True)
    producer.start()
    try:
        with os.fdopen(read_fd, "rb") as source:
            while chunk := source.read(1 << 20):
                yield chunk
    finally:
        producer.join()
    if failure and not isinstance(failure[0], BrokenPipeError):
        raise RuntimeError(f"could not assemble the runtime root filesystem: {failure[0]}") from failure[0]


class _BytesReader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def read(self, size: int = -1) -> bytes:
        end = len(self.data) if size < 0 else self.pos + size
        chunk, self.pos = self.data[self.pos:end], min(end, len(self.data))
        return chunk


def docker_client():
    import docker

    return docker.from_env(timeout=300)


def ensure_image(mode: str = "embed", *, force: bool = False, client=None) -> RuntimeImage:
    """The runtime image for this host's Python, built (offline) only if its inputs changed."""
    started = time.perf_counter()
    plan, runtime = _plan(mode)
    tag = f"{REPOSITORY}:{mode}-{_fingerprint(plan, mode)}"
    client = client or docker_client()
    import docker.errors

    if not force:
        try:
            client.api.inspect_image(tag)
            return RuntimeImage(tag, runtime.mode, runtime.python, runtime.python_bin)
        except docker.errors.ImageNotFound:
            pass
    for library in _shared_libraries(plan.scan):
        plan.add_host(library)
    changes = [f"ENV PATH={runtime.path}", "ENV LANG=C.UTF-8", "ENV PYTHONDONTWRITEBYTECODE=1",
               "WORKDIR /workspace", f'CMD ["{runtime.python}"]',
               f"LABEL envcraft.managed=1 envcraft.image=runtime envcraft.mode={mode} envcraft.python={sys.version.split()[0]}"]
    repository, version = tag.split(":")
    client.api.import_image_from_stream(_tar_stream(plan), repository=repository, tag=version, changes=changes)
    client.api.inspect_image(tag)  # raises if the import did not produce it
    remove_stale_images(keep=tag, client=client)
    return RuntimeImage(tag, runtime.mode, runtime.python, runtime.python_bin,
                        build_seconds=time.perf_counter() - started)


def remove_stale_images(keep: str, client=None) -> list[str]:
    """Remove older runtime images of the same mode; images a container still uses are kept."""
    import docker.errors

    client = client or docker_client()
    mode = keep.split(":")[1].split("-")[0]
    removed = []
    for image in client.api.images(name=REPOSITORY):
        for tag in image.get("RepoTags") or []:
            if tag != keep and tag.startswith(f"{REPOSITORY}:{mode}-"):
                try:
                    client.api.remove_image(tag)
                    removed.append(tag)
                except docker.errors.APIError:
                    pass
    return removed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--force", action="store_true", help="rebuild even if the tag exists")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    image = ensure_image(force=args.force)
    size = docker_client().api.inspect_image(image.tag)["Size"]
    print(json.dumps({"tag": image.tag, "built": image.build_seconds > 0, "seconds": round(time.perf_counter() - started, 3),
                      "size_mb": round(size / 2**20, 1)}))


if __name__ == "__main__":
    main()
