"""Scenario files in, frozen specs out: what a user writes, validated once.

Sizes, rates and times are parsed from unit strings into bytes, bytes per second and
seconds; every error names its file, line, column and field. Nothing downstream checks a
spec again.

This is the public face; the modules behind it:

* :mod:`~sanpath.spec.scenario`: :class:`Scenario`, :func:`load_scenario`, the checks across
  sections and the figures derived from a whole scenario;
* :mod:`~sanpath.spec.host`: hosts, their HBAs or NICs and their transport;
  :mod:`~sanpath.spec.fabric`: the fabric, its switches and ISLs;
  :mod:`~sanpath.spec.hardware`: the array;
  :mod:`~sanpath.spec.drives`: the drives of a pool;
* :mod:`~sanpath.spec.workload`: workloads and schedules; :mod:`~sanpath.spec.run`: the run
  length and warm-up; :mod:`~sanpath.spec.experiment`: sweeps and published figures;
* :mod:`~sanpath.spec.fields`: units, bounds, the :class:`Spec` base and distributions;
* :mod:`~sanpath.spec.errors`: located errors and reading YAML with its line numbers;
* :mod:`~sanpath.spec.transport`: transports (FCP, FC-NVMe, NVMe/TCP, NVMe/RoCE, iSCSI),
  NVMe queue pairs and Ethernet framing;
* :mod:`~sanpath.spec.keys`: dotted keys (``--set a.b.0.c=v``);
* :mod:`~sanpath.spec.flash`: a flash drive given by its datasheet, and the model derived
  from it (:mod:`~sanpath.spec.ssd` is the simple SSD model);
* :mod:`~sanpath.spec.profiles`: named drives, HBAs and arrays, each number with its origin;
  :mod:`~sanpath.spec.assumed`: the assumed and fitted profile numbers a scenario uses.
"""

from sanpath.spec.access import AccessSpec
from sanpath.spec.assumed import Assumption, assumptions
from sanpath.spec.describe import load_line, value_range, workload_words
from sanpath.spec.drives import FlashSpec, HddSpec, SsdSpec, TextbookDriveSpec
from sanpath.spec.errors import Problem, ScenarioError, locate_field, read_yaml
from sanpath.spec.experiment import ReferencePointSpec, ReferenceSpec, SweepSpec
from sanpath.spec.fabric import LIGHT_PER_KM, FabricSpec, IslSpec, SwitchSpec
from sanpath.spec.fields import MAX_HOSTS, MAX_IO_SIZE, DistSpec, Spec
from sanpath.spec.hardware import (
    ArraySpec,
    CacheSpec,
    ControllerSpec,
    CrossControllerSpec,
    LunSpec,
    PoolSpec,
    ZoneSpec,
    lun_queue_limit,
    pool_capacity,
)
from sanpath.spec.host import HbaSpec, HostSpec, PcieSpec, QfullSpec
from sanpath.spec.keys import is_range, parse_assignment, parse_range, set_dotted
from sanpath.spec.knobs import KNOBS, SCHEDULABLE, Knob, knob_key, match_knob
from sanpath.spec.profiles import ARRAY_PROFILES, DRIVE_PROFILES, HBA_PROFILES
from sanpath.spec.run import AUTO_IOS, AnimateSpec, PrecisionSpec, RunSpec
from sanpath.spec.scenario import (
    Scenario,
    expand_names,
    json_schema,
    load_scenario,
    lun_groups_used,
    lun_sizes,
    validate_scenario,
    visible_ports,
)
from sanpath.spec.transport import (
    TRANSPORTS,
    ArrayNvmeSpec,
    Framing,
    IscsiSpec,
    NvmeSpec,
    TransportFacts,
    ethernet_framing,
)
from sanpath.spec.workload import ChangeSpec, CopySpec, WorkloadSpec

__all__ = [
    "ARRAY_PROFILES",
    "AUTO_IOS",
    "DRIVE_PROFILES",
    "HBA_PROFILES",
    "KNOBS",
    "LIGHT_PER_KM",
    "MAX_HOSTS",
    "MAX_IO_SIZE",
    "SCHEDULABLE",
    "TRANSPORTS",
    "AccessSpec",
    "AnimateSpec",
    "ArrayNvmeSpec",
    "ArraySpec",
    "Assumption",
    "CacheSpec",
    "ChangeSpec",
    "ControllerSpec",
    "CopySpec",
    "CrossControllerSpec",
    "DistSpec",
    "FabricSpec",
    "FlashSpec",
    "Framing",
    "HbaSpec",
    "HddSpec",
    "HostSpec",
    "IscsiSpec",
    "IslSpec",
    "Knob",
    "LunSpec",
    "NvmeSpec",
    "PcieSpec",
    "PoolSpec",
    "PrecisionSpec",
    "Problem",
    "QfullSpec",
    "ReferencePointSpec",
    "ReferenceSpec",
    "RunSpec",
    "Scenario",
    "ScenarioError",
    "Spec",
    "SsdSpec",
    "SweepSpec",
    "SwitchSpec",
    "TextbookDriveSpec",
    "TransportFacts",
    "WorkloadSpec",
    "ZoneSpec",
    "assumptions",
    "ethernet_framing",
    "expand_names",
    "is_range",
    "json_schema",
    "knob_key",
    "load_line",
    "load_scenario",
    "locate_field",
    "lun_groups_used",
    "lun_queue_limit",
    "lun_sizes",
    "match_knob",
    "parse_assignment",
    "parse_range",
    "pool_capacity",
    "read_yaml",
    "set_dotted",
    "validate_scenario",
    "value_range",
    "visible_ports",
    "workload_words",
]
