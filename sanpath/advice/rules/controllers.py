"""Rules on the array's controllers: SP022 controller balance."""

from __future__ import annotations

from sanpath.advice.fmt import num, pct
from sanpath.advice.registry import CheckOptions, Found, rule
from sanpath.layout import Wiring
from sanpath.spec import Scenario
from sanpath.theory.twin import predict

BALANCE_BUSY = 0.5
"""The busier controller must be at least this busy (fraction) for an imbalance to matter."""
BALANCE_RATIO = 2.0
"""... and at least this many times as busy as the other."""

SRC_BALANCE = (
    "Dell EMC Unity/VNX best practices (storage processor ownership): balance LUN ownership "
    "across both storage processors so that each carries about half the load; NetApp ONTAP "
    "SAN: spread LUNs over both nodes of an HA pair. sanpath rule: the twin's utilization of "
    "each controller, warned at 50% busy and twice the other's."
)


@rule(
    "SP022-controller-balance",
    "warning",
    "one controller carries the load",
    simulate=False,
    source=SRC_BALANCE,
)
def check_controller_balance(s: Scenario, options: CheckOptions) -> list[Found]:
    """With two controllers, the busier of them (the analytic twin's utilization) at least
    half busy and twice as busy as the other: the LUNs the load goes to are owned by one
    controller (owners alternate by LUN number, the first on controller 0), so it saturates
    while its peer idles. Warning; the fix is a layout, not a setting, so nothing is
    simulated."""
    del options
    if s.array.controllers != 2 or s.array.failed_controller is not None:
        return []
    p = predict(s)
    busy = [p.utilization.get(f"array.controller{c}", 0.0) for c in (0, 1)]
    top = max((0, 1), key=lambda c: busy[c])
    other = 1 - top
    if busy[top] < BALANCE_BUSY or busy[top] < BALANCE_RATIO * busy[other]:
        return []
    wiring = Wiring(s)
    used = sorted({li for (_, li) in wiring.workloads})
    owned = [wiring.luns[li].name for li in used if wiring.luns[li].owner == top]
    shown = ", ".join(owned[:6]) + (f" and {len(owned) - 6} more" if len(owned) > 6 else "")
    return [
        Found(
            title=(
                f"Controller {top} {pct(busy[top])} busy, controller {other} {pct(busy[other])}"
            ),
            message=(
                f"The LUNs the workloads use are owned mostly by controller {top} ({shown}: "
                f"{len(owned)} of {len(used)}), so it is {pct(busy[top])} busy while controller "
                f"{other} is {pct(busy[other])} (the analytic twin at the proposal's load). "
                f"The array's capacity is about {num(p.iops / max(busy[top], 1e-9))} I/O per "
                "second on this layout, and nearer twice that with the load split evenly."
            ),
            mechanism=(
                "Each LUN is served by the controller that owns it; I/O arriving on the other "
                "controller's ports is forwarded. One controller's cores then carry the array's "
                "work and its queue sets the latency, while the peer's cores idle."
            ),
            numbers={
                "busy_controller": top,
                "utilization": busy[top],
                "other_utilization": busy[other],
                "luns_on_busy_controller": len(owned),
                "luns_used": len(used),
            },
            fix_text=(
                f"Move about half of the busy LUNs to controller {other} (alternate the "
                "LUNs' order so that consecutive LUNs, which alternate owners, share the load)."
            ),
        )
    ]
