"""The ``popdice`` command: its parser (``main``), the device subcommands and the demo.
Each package's own subcommands (games, sim, table, traces, firmware, wiring) live in that
package and are imported only when chosen."""
