"""The event kernel: SimPy's environment with its per-event cost taken out.

:class:`Kernel` is the simulation's ``simpy.Environment``. It keeps SimPy's contract to the
letter: events are processed in the order of (time, priority, the order they were
scheduled), a process starts with an urgent event at the time it is made, a processed
event's callbacks run in the order they were added, and :meth:`Kernel.run` stops when its
``until`` event is processed. SimPy's own events (``simpy.Event``, conditions such as
``any_of``) work with it unchanged, so a scenario and seed give the same numbers as with a
plain ``simpy.Environment``, to the last bit.

What it saves is SimPy's cost per event, most of a compiled core's time:

* :meth:`Kernel.timeout` (and :meth:`Kernel.sleep`) makes a :class:`Wake`, a small event
  that holds the one process waiting for it, where SimPy makes a ``Timeout`` and a list of
  callbacks;
* :meth:`Kernel.process` makes a :class:`Task`, which drives its generator as
  ``simpy.Process`` does, and waits on a :class:`Wake` without a callback;
* the event queue is an :class:`~sanpath.sim.agenda.Agenda`, which (compiled) compares the
  (time, priority, order) keys as C numbers, not through Python's comparisons.

One loop processes every event, in both cores: :meth:`Kernel._advance` takes the first
entry off the queue, makes its time now and processes it. An entry
(:class:`~sanpath.sim.agenda.Keyed`) is one of three classes, and each knows how it is
processed (``_fire``, the one place for its kind): a :class:`Wake` resumes its process and
calls its callbacks, a :class:`Task` (a process that finished) calls its callbacks, an
:class:`_Entry` holds one of SimPy's events and does what ``simpy.Environment.step`` does
with it. The kernel's own events are their own places in the queue (no entry is made for
them: a timeout is made several times per command); each is scheduled once, a timeout when
it is made, a process when it finishes. The bases (:class:`~sanpath.sim.agenda.Keyed`,
:class:`_Event`) are abstract and no other class derives from them: mypyc then checks the
type of an entry read from the queue by comparing it with those three classes (at most
three: ``mypyc.common.FAST_ISINSTANCE_MAX_SUBCLASSES``), not by walking the class hierarchy
(a read per level of the heap, several per event).

A :class:`Wake` and a :class:`Task` stand in for SimPy's ``Timeout`` and ``Process``: they
carry what SimPy's events and conditions read (``env``, ``callbacks``, ``_ok``,
``_value``), so code written for SimPy treats them as such. A :class:`Wake` is also the
event a component fires itself (:meth:`Wake.succeed`, as ``simpy.Event.succeed()``). A
:class:`Task` cannot be interrupted, and an exception in its generator stops the run at once.

SimPy's private fields. :class:`Kernel` derives from ``simpy.Environment`` (for its
``event``, ``all_of``, ``any_of``, ``active_process`` and ``exit``) without calling its
``__init__``, whose queue it replaces; it relies on these private fields of SimPy 4 (the
major version ``setup.cfg`` pins): ``Environment._now`` and ``Environment._active_proc``
(set here, read by SimPy's own methods); ``Event._ok``, ``Event._value`` and
``Event._defused`` (read of SimPy's events, and the same names carried by the kernel's, which
SimPy's conditions read); and ``Event.callbacks`` and ``Event.env`` (public, but their
meaning: a list until processed, then None). ``tests/sim/test_kernel_sleep.py`` checks them.

Times are seconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

import simpy

from sanpath.sim.agenda import Agenda, Keyed

if TYPE_CHECKING:
    from mypy_extensions import i64  # an int, as the queue's keys (sanpath.sim.agenda)

URGENT: Final = 0
"""Priority of a process's start, before the ordinary events of the same instant."""
NORMAL: Final = 1
"""Priority of every other event."""

Callback = Callable[[Any], None]


class Waiter(Protocol):
    """What a :class:`Wake` resumes directly when it is processed (its ``task``): a process
    (:class:`Task`), or a component that serves one thing at a time and waits for the end of
    each (a drive), called without going through a list of callbacks.

    A protocol, which mypyc makes a trait: classes that derive from another mix it in."""

    __slots__ = ()

    def resume(self, event: Any) -> None:
        """``event``, processed now, is the one this waited for."""
        raise NotImplementedError


class _Event(Keyed):
    """What SimPy's events and conditions read of an event: ``env``, ``callbacks`` (None once
    processed), ``_ok`` and ``_value``. Abstract (see the module docstring)."""

    __slots__ = ("_ok", "_value", "callbacks", "env")

    def __init__(self, env: Kernel, value: object) -> None:
        self.env = env
        self.callbacks: list[Callback] | None = []
        self._ok = True
        self._value = value

    @property
    def processed(self) -> bool:
        """True once its callbacks have run."""
        return self.callbacks is None

    @property
    def ok(self) -> bool:
        """Always True (an exception in a process stops the run)."""
        return self._ok

    @property
    def value(self) -> object:
        """A timeout's value; a process's return value."""
        return self._value


class Wake(_Event):
    """A timeout (:meth:`Kernel.timeout`), processed when its time comes, or a signal a
    component fires now (:meth:`succeed`).

    ``task`` is the process waiting for it, when it was the first to wait (or another
    :class:`Waiter`): the kernel resumes it directly. ``callbacks`` holds any other
    functions to call, as a SimPy event does (None once processed).
    """

    __slots__ = ("task",)

    def __init__(self, env: Kernel, value: object = None) -> None:
        # _Event.__init__ written out: a timeout is made several times per command
        self.env = env
        self.callbacks = []
        self._ok = True
        self._value = value
        self.task: Waiter | None = None

    @property
    def triggered(self) -> bool:
        """Always True: a timeout is triggered when it is made."""
        return True

    def succeed(self) -> Wake:
        """Schedule the event now, for the process waiting on it (a signal)."""
        self.env.schedule(self)
        return self

    def waited(self) -> simpy.Event:
        """The event as a process yields it (a SimPy event to the type checker)."""
        return cast(simpy.Event, self)

    def _fire(self) -> None:
        task = self.task
        callbacks = self.callbacks
        self.callbacks = None
        if task is not None:
            task.resume(self)
        if callbacks:
            self.env._callbacks(self, callbacks)


_PENDING: Final = object()
"""The value of a :class:`Task` still running."""


class Task(_Event, Waiter):
    """A process: runs a generator of events, resuming it when each event is processed.

    Like ``simpy.Process`` it is an event too, triggered when the generator returns (its
    ``value`` is then the return value), so that another process may wait for it.
    """

    __slots__ = ("_send", "generator")

    def __init__(self, env: Kernel, generator: Generator[Any, Any, Any]) -> None:
        super().__init__(env, _PENDING)
        self.generator = generator
        self._send: Callable[[Any], Any] = generator.send
        """The generator's ``send``, looked up once: a process is resumed many times."""
        start = Wake(env)
        start.task = self
        env.schedule(start, URGENT)

    @property
    def triggered(self) -> bool:
        """True once the generator has returned."""
        return self._value is not _PENDING

    @property
    def is_alive(self) -> bool:
        """True until the generator returns."""
        return self._value is _PENDING

    def resume(self, event: Any) -> None:
        """Send processed ``event``'s value into the generator and wait for the event it
        yields; one already processed is answered at once, as SimPy does. A failed event's
        exception is thrown into the generator."""
        send = self._send
        while True:
            try:
                if isinstance(event, Wake):
                    # the common event, its value read as the native attribute it is
                    event = send(event._value)
                elif event._ok:
                    event = send(event._value)
                else:
                    event._defused = True
                    error = event._value
                    copy = type(error)(*error.args)
                    copy.__cause__ = error
                    event = self.generator.throw(copy)
            except StopIteration as stop:
                self._finish(stop.value)
                return
            if isinstance(event, Wake):
                waiting = event.callbacks
                if waiting is not None:
                    if event.task is None and not waiting:
                        event.task = self
                    else:
                        waiting.append(self.resume)
                    return
            else:
                callbacks = event.callbacks
                if callbacks is not None:
                    callbacks.append(self.resume)
                    return

    def _finish(self, value: object) -> None:
        """The generator returned ``value``: trigger the process's own event."""
        self._value = value
        self.env.schedule(self, NORMAL)

    def _fire(self) -> None:
        callbacks = self.callbacks
        self.callbacks = None
        if callbacks:
            self.env._callbacks(self, callbacks)


class _Stop:
    """The callback that ends :meth:`Kernel.run` when its ``until`` event is processed."""

    __slots__ = ("event",)

    def __init__(self) -> None:
        self.event: Any = None

    def __call__(self, event: Any) -> None:
        self.event = event


class _Entry(Keyed):
    """One of SimPy's events in the queue, with its key (set when scheduled)."""

    __slots__ = ("event", "kernel")

    def __init__(self, kernel: Kernel, event: Any) -> None:
        self.kernel = kernel
        self.event = event

    def _fire(self) -> None:
        # as simpy.Environment.step: the callbacks in order, then a failure nobody handled
        # stops the run
        event = self.event
        callbacks = event.callbacks
        event.callbacks = None
        self.kernel._callbacks(event, callbacks)
        if not event._ok and not hasattr(event, "_defused"):
            error = event._value
            copy = type(error)(*error.args)
            copy.__cause__ = error
            raise copy


class Kernel(simpy.Environment):
    """The simulation's environment (see the module docstring); ``now`` in seconds."""

    _now: float

    def __init__(self, initial_time: float = 0.0) -> None:
        # not simpy.Environment.__init__: this queue replaces SimPy's (see the module
        # docstring for the private fields kept)
        self._now = initial_time
        self._agenda = Agenda()
        """The events scheduled and not yet processed."""
        self._order: i64 = 0
        """The order of the next event scheduled (the last part of its key)."""
        self._active_proc = None
        self._stop: _Stop | None = None

    @property
    def now(self) -> float:
        """The current simulated time (s)."""
        return self._now

    def _push(self, entry: Keyed, priority: i64, delay: float) -> None:
        """Put ``entry`` in the queue, due ``delay`` seconds from now, after every entry
        scheduled before it with the same time and priority."""
        order = self._order
        self._order = order + 1
        entry.time = self._now + delay
        entry.priority = priority
        entry.order = order
        if delay == 0.0 and priority == NORMAL:
            self._agenda.push_now(entry)
        else:
            self._agenda.push(entry)

    def schedule(self, event: Any, priority: int = NORMAL, delay: float = 0.0) -> None:
        """Schedule ``event`` for processing ``delay`` seconds from now."""
        entry: Keyed = event if isinstance(event, _Event) else _Entry(self, event)
        self._push(entry, priority, delay)

    def timeout(self, delay: float = 0.0, value: Any = None) -> simpy.Timeout:
        """An event processed ``delay`` seconds from now (a :class:`Wake`)."""
        if delay < 0:
            raise ValueError(f"Negative delay {delay}")
        wake = Wake(self, value)
        self._push(wake, NORMAL, delay)
        # A Wake stands in for a Timeout (see the module docstring); not typing.cast, which
        # the pure-Python core would call for every timeout.
        return wake  # type: ignore[return-value]

    def sleep(self, delay: float) -> simpy.Event:
        """What a process yields at once to wait ``delay`` (>= 0, not checked) seconds: a
        timeout (a :class:`Wake`) whose value is None, made without the check."""
        wake = Wake(self)
        self._push(wake, NORMAL, delay)
        return wake  # type: ignore[return-value]  # an event to the process, see timeout

    def process(self, generator: Generator[Any, Any, Any]) -> simpy.Process:
        """Start a process running ``generator`` now, before the instant's other events
        (a :class:`Task`)."""
        return cast(simpy.Process, Task(self, generator))

    def peek(self) -> float:
        """The time of the next event (infinity when there is none)."""
        time = self._agenda.peek()
        return math.inf if time is None else time

    def _advance(self) -> bool:
        """Process the next event: take it off the queue, make its time now and process it
        (the kernel's one loop runs this). False when no event is left."""
        entry = self._agenda.pop()
        if entry is None:
            return False
        self._now = entry.time
        entry._fire()
        return True

    def step(self) -> None:
        """Process the next event (``simpy.core.EmptySchedule`` when there is none)."""
        if not self._advance():
            raise simpy.core.EmptySchedule()

    def run(self, until: Any = None) -> Any:
        """Process events until ``until``: an event processed, a time (s) reached, or (None)
        no event left. Returns the ``until`` event's value.

        Raises RuntimeError when no event is left before the ``until`` event was triggered.
        """
        stop = _Stop()
        if until is not None:
            if not hasattr(until, "callbacks"):
                at = float(until)
                if at <= self._now:
                    raise ValueError(
                        f"until ({at}) must be greater than the current simulation time"
                    )
                until = Wake(self)
                self.schedule(until, URGENT, at - self._now)
            elif until.callbacks is None:
                return until._value
            until.callbacks.append(stop)
        self._stop = stop
        try:
            while self._advance():
                if stop.event is not None:
                    if not until._ok:
                        raise until._value
                    return until._value
        finally:
            self._stop = None
        if until is not None:
            raise RuntimeError(
                f'No scheduled events left but "until" event was not triggered: {until}'
            )
        return None

    def _callbacks(self, event: Any, callbacks: list[Callback]) -> None:
        """Call ``callbacks`` with ``event``, in order; the run's stop ends them."""
        stop = self._stop
        for callback in callbacks:
            callback(event)
            if callback is stop:
                return
