"""The kernel's event queue (:class:`~sanpath.sim.agenda.Agenda`) pops what :mod:`heapq`
pops: the entry with the least (time, priority, order) key, ties of time broken by priority
and then by the order the kernel scheduled them in."""

from __future__ import annotations

import heapq

from hypothesis import given, settings
from hypothesis import strategies as st

from sanpath.sim.agenda import Agenda
from sanpath.sim.kernel import NORMAL, URGENT, Kernel, Wake

# Few distinct times, so that ties (the point of the key's other parts) are common; 0.1 + 0.2
# is not 0.3.
TIMES = (0.0, 0.1 + 0.2, 0.3, 1.0, 1e-9, 2.5)


def _entry(kernel: Kernel, time: float, priority: int, order: int) -> Wake:
    """A queue entry (one of the kernel's own, a :class:`Wake`) with its key."""
    entry = Wake(kernel)
    entry.time = time
    entry.priority = priority
    entry.order = order
    return entry


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TIMES), st.sampled_from((URGENT, NORMAL))), max_size=60))
def test_pops_in_the_order_of_heapq_on_random_keys(keys: list[tuple[float, int]]) -> None:
    """Entries pushed in any order of time and priority, their order numbers ascending (as
    the kernel numbers them), come off as heapq's tuples do."""
    kernel = Kernel()
    agenda = Agenda()
    reference: list[tuple[float, int, int]] = []
    for order, (time, priority) in enumerate(keys):
        agenda.push(_entry(kernel, time, priority, order))
        heapq.heappush(reference, (time, priority, order))
    popped = []
    while (entry := agenda.pop()) is not None:
        popped.append((entry.time, entry.priority, entry.order))
    assert popped == [heapq.heappop(reference) for _ in range(len(reference))]
    assert agenda.peek() is None


# One operation of a kernel on its queue: schedule an entry (a delay index and a priority),
# or take the first entry off.
operations = st.lists(
    st.one_of(
        st.tuples(st.just("push"), st.integers(0, len(TIMES) - 1), st.sampled_from((0, 1))),
        st.tuples(st.just("pop"), st.just(0), st.just(0)),
    ),
    max_size=120,
)


@settings(max_examples=300, deadline=None)
@given(operations)
def test_entries_due_now_keep_the_order_of_heapq(ops: list[tuple[str, int, int]]) -> None:
    """As the kernel uses it: an entry due now with normal priority goes to the list of the
    instant (``push_now``), any other to the heap; pops interleave with pushes, and the
    clock moves to each popped entry's time. Every pop and peek agrees with heapq."""
    kernel = Kernel()
    agenda = Agenda()
    reference: list[tuple[float, int, int]] = []
    now = 0.0
    order = 0
    instants = 0
    for what, delay, priority in ops:
        if what == "push":
            delay_s = TIMES[delay]
            entry = _entry(kernel, now + delay_s, priority, order)
            if delay_s == 0.0 and priority == NORMAL:
                agenda.push_now(entry)
                instants += 1
            else:
                agenda.push(entry)
            heapq.heappush(reference, (now + delay_s, priority, order))
            order += 1
        else:
            got = agenda.pop()
            if not reference:
                assert got is None
                continue
            assert got is not None
            expected = heapq.heappop(reference)
            assert (got.time, got.priority, got.order) == expected
            now = got.time
        assert agenda.peek() == (reference[0][0] if reference else None)
    while reference:
        got = agenda.pop()
        assert got is not None
        assert (got.time, got.priority, got.order) == heapq.heappop(reference)
    assert agenda.pop() is None


def test_an_entry_due_now_waits_behind_an_urgent_one_of_the_same_instant() -> None:
    kernel = Kernel()
    agenda = Agenda()
    agenda.push_now(_entry(kernel, 0.0, NORMAL, 0))
    agenda.push(_entry(kernel, 0.0, URGENT, 1))
    agenda.push(_entry(kernel, 1.0, URGENT, 2))
    agenda.push_now(_entry(kernel, 0.0, NORMAL, 3))
    keys = []
    while (entry := agenda.pop()) is not None:
        keys.append(entry.order)
    assert keys == [1, 0, 3, 2]
