"""Test-suite set-up: the hardware-in-the-loop fixtures (popper, handheld, --device)."""

pytest_plugins = ["popdice.hil"]
