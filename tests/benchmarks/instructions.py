"""One run of a shipped scenario for an instruction count: the engine's cost, machine-independent.

Wall-clock ratios on a shared machine move by ten percent from run to run; an instruction
count does not. Run the simulation under callgrind, counting only inside the run (imports and
the scenario's loading left out), once on each tree to compare::

    valgrind --tool=callgrind --toggle-collect='CPyDef_engine___Simulation___run' \\
        .venv/bin/python tests/benchmarks/instructions.py scenarios/hpux_max_q_depth.yaml 20000

``Collected`` in valgrind's summary is the count; ``callgrind_annotate`` splits it by function.
The toggle names the compiled core's function; for the pure-Python core use
``--toggle-collect='*Simulation.run*'`` or count the whole process.
"""

from __future__ import annotations

import sys

import sanpath


def main() -> None:
    path = sys.argv[1]
    ios = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    sanpath.run(path, overrides={"run.ios": ios, "run.warmup_ios": ios // 10})


if __name__ == "__main__":
    main()
