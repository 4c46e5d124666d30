"""The event kernel keeps SimPy's rules: the same programs give the same event order."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from sanpath.sim.kernel import Kernel, Task, Wake

Program = list[list[tuple[str, int]]]

# One step of a process: sleep (a delay index), wait for a shared event, fire one, spawn a
# child (the index of another process's steps), or wait for the last child it spawned.
steps = st.one_of(
    st.tuples(st.just("sleep"), st.integers(0, 3)),
    st.tuples(st.just("wait"), st.integers(0, 2)),
    st.tuples(st.just("fire"), st.integers(0, 2)),
    st.tuples(st.just("spawn"), st.integers(0, 3)),
    st.tuples(st.just("join"), st.just(0)),
)
programs = st.lists(st.lists(steps, max_size=8), min_size=1, max_size=4)
DELAYS = (0.0, 0.5, 1.0, 0.1 + 0.2)  # ties at equal times are the point


def trace(env: simpy.Environment, program: Program, roots: int) -> list[tuple[Any, ...]]:
    """Run ``program`` in ``env``: every process records what it saw, when."""
    shared = [env.event() for _ in range(3)]
    log: list[tuple[Any, ...]] = []
    spawned = [0]

    def proc(name: str, index: int) -> Generator[Any, Any, str]:
        child = None
        for k, (what, arg) in enumerate(program[index % len(program)]):
            log.append((env.now, name, k, what))
            if what == "sleep":
                value = yield env.timeout(DELAYS[arg], value=(name, k))
                log.append((env.now, name, "woke", value))
            elif what == "wait":
                value = yield shared[arg]
                log.append((env.now, name, "got", value))
            elif what == "fire" and not shared[arg].triggered:
                shared[arg].succeed((name, k))
            elif what == "spawn" and spawned[0] < 12:
                spawned[0] += 1
                child = env.process(proc(f"{name}.{k}", arg))
            elif what == "join" and child is not None:
                value = yield child
                log.append((env.now, name, "joined", value))
        return name

    for i in range(roots):
        env.process(proc(f"p{i}", i))
    env.run(until=10.0)
    for event in shared:  # let every waiter go, then run to the end
        if not event.triggered:
            event.succeed("late")
    env.run()
    log.append(("end", env.now))
    return log


@settings(max_examples=150, deadline=None)
@given(programs, st.integers(1, 4))
def test_same_order_as_simpy(program: Program, roots: int) -> None:
    assert trace(Kernel(), program, roots) == trace(simpy.Environment(), program, roots)


def joined(env: simpy.Environment) -> list[str]:
    """A process that waits for one that already ended (its end still queued)."""
    log: list[str] = []

    def child() -> Generator[Any, Any, str]:
        return "child"
        yield  # a generator that ends when it starts

    def parent() -> Generator[Any, Any, None]:
        task = env.process(child())
        yield env.timeout(0.0)  # the child starts and ends meanwhile
        log.append("parent waits")
        log.append(f"parent joined {(yield task)}")

    def other() -> Generator[Any, Any, None]:
        yield env.timeout(0.0)
        log.append("other")

    env.process(parent())
    env.process(other())
    env.run()
    return log


def test_a_process_end_is_an_event_in_the_queue() -> None:
    expected = ["parent waits", "other", "parent joined child"]
    assert joined(simpy.Environment()) == expected
    assert joined(Kernel()) == expected


def test_ties_follow_priority_then_scheduling_order() -> None:
    env = Kernel()
    seen: list[str] = []

    def proc(name: str) -> Generator[Any, Any, None]:
        seen.append(f"{name} starts")
        yield env.timeout(1.0)
        seen.append(f"{name} at 1")

    env.timeout(1.0).callbacks.append(lambda _e: seen.append("callback at 1"))
    env.process(proc("a"))
    env.process(proc("b"))
    env.run()
    # processes start before the instant's ordinary events; equal times keep their order
    assert seen == ["a starts", "b starts", "callback at 1", "a at 1", "b at 1"]
    assert env.now == 1.0


def test_run_until_a_time_an_event_or_the_end() -> None:
    env = Kernel()
    fired = env.event()

    def proc() -> Generator[Any, Any, None]:
        yield env.timeout(2.0)
        fired.succeed("done")
        yield env.timeout(3.0)

    env.process(proc())
    env.run(until=1.5)
    assert env.now == 1.5
    assert env.run(until=fired) == "done"
    assert env.now == 2.0
    assert env.run(until=fired) == "done"  # already processed: returns at once
    env.run()
    assert env.now == 5.0
    assert env.peek() == float("inf")
    with pytest.raises(ValueError, match="greater than the current"):
        env.run(until=1.0)
    with pytest.raises(RuntimeError, match="not triggered"):
        env.run(until=env.event())


def test_processes_are_events_and_values_pass_through() -> None:
    env = Kernel()

    def child() -> Generator[Any, Any, int]:
        value = yield env.timeout(1.0, value=20)
        return int(value) + 1

    def parent() -> Generator[Any, Any, int]:
        task = env.process(child())
        assert isinstance(task, Task) and task.is_alive
        result = yield task
        early = env.timeout(0.0, value="now")
        assert isinstance(early, Wake)
        yield env.timeout(1.0)
        assert early.processed
        again = yield early  # an event already processed answers at once
        assert again == "now"
        return int(result) * 2

    task = env.process(parent())
    assert env.run(until=task) == 42
    assert env.now == 2.0 and task.triggered and not task.is_alive


def test_conditions_and_failures_work_as_in_simpy() -> None:
    env = Kernel()
    stop = env.event()
    either = env.any_of([stop, env.timeout(5.0)])
    env.run(until=either)
    assert env.now == 5.0

    failing = env.event()
    caught: list[str] = []

    def handler() -> Generator[Any, Any, None]:
        try:
            yield failing
        except KeyError as error:
            caught.append(str(error))

    env.process(handler())
    env.timeout(1.0).callbacks.append(lambda _e: failing.fail(KeyError("lost")))
    env.run()
    assert caught == ["'lost'"]

    unhandled = env.event()
    unhandled.fail(ValueError("nobody waits"))
    with pytest.raises(ValueError, match="nobody waits"):
        env.run()
    with pytest.raises(ValueError, match="Negative delay"):
        env.timeout(-1.0)


def test_an_error_in_a_process_stops_the_run() -> None:
    env = Kernel()

    def broken() -> Generator[Any, Any, None]:
        yield env.timeout(1.0)
        raise ZeroDivisionError("model bug")

    env.process(broken())
    with pytest.raises(ZeroDivisionError, match="model bug"):
        env.run()
    assert env.now == 1.0
