"""``Kernel.sleep`` in random programs does what ``timeout`` does in plain SimPy, and the
kernel keeps the private fields of SimPy it relies on (``sanpath.sim.kernel``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Generator
from typing import Any

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from sanpath import compiled
from sanpath.sim.kernel import Kernel
from tests.conftest import ROOT

Program = list[list[tuple[str, int]]]

# One step of a process: sleep (a delay index), time out with a value, wait for a shared
# event, fire one, spawn a child (the index of another process's steps), wait for the last
# child it spawned, or wait for any of two shared events.
steps = st.one_of(
    st.tuples(st.just("sleep"), st.integers(0, 4)),
    st.tuples(st.just("timeout"), st.integers(0, 4)),
    st.tuples(st.just("wait"), st.integers(0, 2)),
    st.tuples(st.just("fire"), st.integers(0, 2)),
    st.tuples(st.just("spawn"), st.integers(0, 3)),
    st.tuples(st.just("join"), st.just(0)),
    st.tuples(st.just("either"), st.integers(0, 2)),
)
programs = st.lists(st.lists(steps, max_size=10), min_size=1, max_size=5)
DELAYS = (0.0, 0.5, 1.0, 0.1 + 0.2, 0.3)  # ties at equal times are the point


def trace(
    env: simpy.Environment,
    sleep: Callable[[float], simpy.Event],
    program: Program,
    roots: int,
) -> list[list[Any]]:
    """Run ``program`` in ``env``, each process sleeping through ``sleep``: the (time,
    process, step) of everything the processes did, and the end."""
    shared = [env.event() for _ in range(3)]
    log: list[list[Any]] = []
    spawned = [0]

    def proc(name: str, index: int) -> Generator[Any, Any, str]:
        child = None
        for k, (what, arg) in enumerate(program[index % len(program)]):
            log.append([env.now, name, k, what])
            if what == "sleep":
                value = yield sleep(DELAYS[arg])
                log.append([env.now, name, k, "slept", value])
            elif what == "timeout":
                value = yield env.timeout(DELAYS[arg], value=f"{name}.{k}")
                log.append([env.now, name, k, "woke", value])
            elif what == "wait":
                value = yield shared[arg]
                log.append([env.now, name, k, "got", value])
            elif what == "fire" and not shared[arg].triggered:
                shared[arg].succeed(f"{name}.{k}")
            elif what == "spawn" and spawned[0] < 12:
                spawned[0] += 1
                child = env.process(proc(f"{name}.{k}", arg))
            elif what == "join" and child is not None:
                value = yield child
                log.append([env.now, name, k, "joined", value])
            elif what == "either":
                yield shared[arg] | sleep(DELAYS[arg])
                log.append([env.now, name, k, "either"])
        return name

    for i in range(roots):
        env.process(proc(f"p{i}", i))
    env.run(until=10.0)
    for event in shared:  # let every waiter go, then run to the end
        if not event.triggered:
            event.succeed("late")
    env.run()
    log.append(["end", env.now])
    return log


def kernel_trace(program: Program, roots: int) -> list[list[Any]]:
    kernel = Kernel()
    return trace(kernel, kernel.sleep, program, roots)


def simpy_trace(program: Program, roots: int) -> list[list[Any]]:
    env = simpy.Environment()
    return trace(env, env.timeout, program, roots)


@settings(max_examples=200, deadline=None)
@given(programs, st.integers(1, 5))
def test_sleep_traces_as_a_simpy_timeout(program: Program, roots: int) -> None:
    assert kernel_trace(program, roots) == simpy_trace(program, roots)


def test_a_sleep_wakes_in_scheduling_order_among_timeouts() -> None:
    kernel = Kernel()
    seen: list[str] = []

    def sleeper(name: str, delay: float) -> Generator[Any, Any, None]:
        value = yield kernel.sleep(delay)
        seen.append(f"{name} {kernel.now} {value}")

    kernel.timeout(1.0).callbacks.append(lambda _e: seen.append("timeout 1.0"))
    kernel.process(sleeper("a", 1.0))
    kernel.process(sleeper("b", 0.0))
    kernel.run()
    assert seen == ["b 0.0 None", "timeout 1.0", "a 1.0 None"]
    with pytest.raises(simpy.core.EmptySchedule):
        kernel.step()


# Random programs, the same in every process that runs this module (a fixed seed).
_FIXED = [
    [[("sleep", 1), ("spawn", 1), ("wait", 0), ("join", 0), ("sleep", 3)]],
    [[("sleep", 3), ("fire", 0), ("timeout", 2)], [("wait", 0), ("sleep", 0), ("either", 1)]],
    [
        [("spawn", 1), ("sleep", 4), ("fire", 1), ("join", 0)],
        [("either", 1), ("sleep", 2), ("fire", 2)],
        [("wait", 2), ("timeout", 0), ("sleep", 3)],
    ],
]


def _fixed_traces() -> list[list[list[Any]]]:
    return [kernel_trace(program, 3) for program in _FIXED]


@pytest.mark.skipif(
    compiled.core() != "compiled", reason="the pure-Python core runs in this process"
)
def test_the_compiled_and_pure_cores_trace_the_same_programs() -> None:
    """The same programs on the compiled kernel (here) and the pure-Python one (a process
    of its own)."""
    code = (
        "import json; from tests.sim.test_kernel_sleep import _fixed_traces; "
        "print(json.dumps(_fixed_traces()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "SANPATH_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout) == json.loads(json.dumps(_fixed_traces()))


def test_the_private_fields_of_simpy_the_kernel_relies_on() -> None:
    """What the kernel docstring names: SimPy 4's environment keeps ``_now`` and
    ``_active_proc``; its events ``_ok``, ``_value``, ``callbacks`` and ``env``, a failed
    event handled is marked ``_defused``; its conditions read the same of the kernel's."""
    assert simpy.__version__.split(".")[0] == "4"
    env = simpy.Environment(2.0)
    assert env._now == 2.0 and env._active_proc is None
    event = env.event()
    assert event.env is env and event.callbacks == [] and event._value is simpy.events.PENDING
    event.succeed("v")
    assert event._ok is True and event._value == "v"
    failed = env.event()
    failed.fail(KeyError("k"))
    assert failed._ok is False and isinstance(failed._value, KeyError)
    failed.defused = True
    assert failed._defused is True
    kernel = Kernel()
    either = kernel.any_of([kernel.timeout(1.0, value="a"), kernel.timeout(2.0)])
    kernel.run(until=either)
    assert kernel.now == 1.0 and list(either.value.values()) == ["a"]
