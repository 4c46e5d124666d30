"""The rules, one module per family; importing this package registers every one of them.

* :mod:`~sanpath.advice.rules.queues`: SP001 port fan-in, SP002 per-LUN limit;
* :mod:`~sanpath.advice.rules.transfer`: SP003 splitting, SP004 PCIe slot, SP005 link speed;
* :mod:`~sanpath.advice.rules.paths`: SP006 port balance, SP007 enclosure fan-out, SP008
  failover, SP009 single path;
* :mod:`~sanpath.advice.rules.depth`: SP010 queue too shallow, SP011 latency target;
* :mod:`~sanpath.advice.rules.raid`: SP012 RAID write penalty, SP013 write-aside;
* :mod:`~sanpath.advice.rules.host`: SP014 driver range, SP015 host processors;
* :mod:`~sanpath.advice.rules.qfull`: SP016 throttling hosts beside hosts that do not (and
  the refusal cost SP001 and SP002 state);
* :mod:`~sanpath.advice.rules.nvme`: SP017 round-robin over unequal paths, SP018 queue pairs
  too few, SP019 fewer I/O queues than processors, SP020 NVMe/TCP on a 1,500-byte MTU,
  SP021 FCP and FC-NVMe on one array port;
* :mod:`~sanpath.advice.rules.controllers`: SP022 controller balance;
* :mod:`~sanpath.advice.rules.fabric`: SP023 too few buffer-to-buffer credits, SP024 ISL
  fan-in.
"""

from sanpath.advice.rules import (
    controllers,
    depth,
    fabric,
    host,
    nvme,
    paths,
    qfull,
    queues,
    raid,
    transfer,
)
from sanpath.advice.rules.paths import port_balance
from sanpath.advice.rules.queues import safe_host_queue_depth

__all__ = [
    "controllers",
    "depth",
    "fabric",
    "host",
    "nvme",
    "paths",
    "port_balance",
    "qfull",
    "queues",
    "raid",
    "safe_host_queue_depth",
    "transfer",
]
