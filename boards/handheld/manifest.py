# Freezes the handheld into a MicroPython build for the Pico. In MicroPython's tree:
#   make -C ports/rp2 BOARD=RPI_PICO \
#       FROZEN_MANIFEST=/path/to/popdice/boards/handheld/manifest.py
# The port's own manifest first: _boot.py mounts the filesystem; asyncio, neopixel and the
# rest come from it. A frozen main.py runs in place of one on the filesystem, while board.py
# and popdice_fw on the filesystem (popdice flash) come before the frozen ones.
include("$(PORT_DIR)/boards/manifest.py")
package("popdice_fw", base_path="../../firmware")
module("board.py")
module("main.py", base_path="../../firmware")
