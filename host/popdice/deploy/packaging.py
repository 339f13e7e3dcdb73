"""The firmware as MicroPython's own tools take it: per board, a mip package
(``boards/KIND/package.json``) and a freeze manifest (``boards/KIND/manifest.py``).

``mpremote mip install --target . boards/popper/package.json`` copies the popper's files
onto a board; a MicroPython build given ``FROZEN_MANIFEST=.../boards/popper/manifest.py``
freezes them into its image. Both must name exactly the files ``popdice flash`` writes.
``python -m popdice.deploy.packaging`` checks that and lists what each manifest would freeze;
``--write`` writes the package files again after the firmware gains or loses a module.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import popdice_fw

from ..errors import PopdiceError
from .files import CHECKOUT, KINDS, FlashFile, flash_files


def package_path(kind: str) -> Path:
    return CHECKOUT.boards / kind / "package.json"


def manifest_path(kind: str) -> Path:
    return CHECKOUT.boards / kind / "manifest.py"


def mip_package(kind: str) -> dict[str, Any]:
    """mip's package.json for a board: each file a flash writes, relative to the package's
    folder (``boards/KIND/``)."""
    folder = package_path(kind).parent
    urls = [
        [item.target, Path(os.path.relpath(item.source, folder)).as_posix()]
        for item in flash_files(kind, CHECKOUT)
    ]
    return {"version": popdice_fw.VERSION, "urls": urls}


def package_text(kind: str) -> str:
    """The package as it is kept: one file to a line."""
    package = mip_package(kind)
    urls = ",\n".join(f"    {json.dumps(pair)}" for pair in package["urls"])
    return f'{{\n  "version": {json.dumps(package["version"])},\n  "urls": [\n{urls}\n  ]\n}}\n'


class _Manifest:
    """What a freeze manifest asks for, read the way MicroPython's manifestfile.py reads it
    (paths relative to the manifest's folder; a package is every .py file below it). An
    include of a manifest outside this tree (the port's own) is recorded, not followed."""

    def __init__(self, path: Path) -> None:
        self.folder = path.parent
        self.files: list[FlashFile] = []
        self.includes: list[str] = []

    def package(self, package_path: str, files: Any = None, base_path: str = ".", opt: Any = None):
        base = (self.folder / base_path).resolve()
        found = [base / package_path / f for f in files] if files else None
        for source in found or sorted((base / package_path).rglob("*.py")):
            self.files.append(FlashFile(source, source.relative_to(base).as_posix()))

    def module(self, module_path: str, base_path: str = ".", opt: Any = None) -> None:
        self.files.append(FlashFile((self.folder / base_path / module_path).resolve(), module_path))

    def include(self, manifest_path: str, **_options: Any) -> None:
        self.includes.append(manifest_path)

    def metadata(self, **_fields: Any) -> None:
        pass


def frozen_files(kind: str) -> tuple[list[FlashFile], list[str]]:
    """The files a board's manifest would freeze (source and frozen path), and the manifests
    it includes."""
    path = manifest_path(kind)
    manifest = _Manifest(path)
    names = {n: getattr(manifest, n) for n in ("package", "module", "include", "metadata")}
    try:
        exec(compile(path.read_text(), str(path), "exec"), names)
    except NameError as error:
        raise PopdiceError(f"{path}: {error} (this check knows {', '.join(names)})") from None
    return manifest.files, manifest.includes


def problems(kind: str) -> list[str]:
    """How the board's package.json and manifest differ from what a flash writes."""
    wanted = {item.target: item.source for item in flash_files(kind, CHECKOUT)}
    found = []
    written = package_path(kind)
    if not written.is_file() or written.read_text() != package_text(kind):
        found.append(
            f"boards/{kind}/{written.name} does not list the firmware: "
            "python -m popdice.deploy.packaging --write"
        )
    frozen, _includes = frozen_files(kind)
    if {f.target: f.source for f in frozen} != wanted or len(frozen) != len(wanted):
        found.append(f"boards/{kind}/manifest.py does not freeze the files a flash writes")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help="write boards/KIND/package.json again")
    args = parser.parse_args(argv)
    failed = False
    try:
        for kind in KINDS:
            if args.write:
                package_path(kind).write_text(package_text(kind))
            frozen, includes = frozen_files(kind)
            print(f"{kind}: freezes {', '.join(f.target for f in frozen)}")
            print(f"{kind}: includes {', '.join(includes) or 'nothing'}")
            for problem in problems(kind):
                print(f"error: {problem}", file=sys.stderr)
                failed = True
    except (PopdiceError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
