"""Placing ranks onto hosts: `--hosts h1:4,h2:4` fills hosts in order."""

import collections
import dataclasses
import socket


class PlacementError(ValueError):
    """A bad --hosts value or a job that does not fit the slots."""


@dataclasses.dataclass(frozen=True)
class Slot:
    host: str
    slots: int


@dataclasses.dataclass(frozen=True)
class RankPlace:
    rank: int
    host: str
    local_rank: int
    local_size: int
    remote: bool


def parse_hosts(text):
    """Parses "h1:4,h2,h3:2" (a missing count means one slot) into Slots."""
    if not text.strip():
        raise PlacementError("--hosts is empty; expected HOST[:SLOTS][,HOST[:SLOTS]...], "
                             "e.g. --hosts node1:4,node2:4 (leave --hosts out to run every "
                             "rank on this host)")
    result = []
    for item in text.split(","):
        item = item.strip()
        host, sep, count = item.rpartition(":")
        if not sep:
            host, count = item, "1"
        if not host:
            raise PlacementError(f"--hosts: empty host name in {text!r}")
        try:
            slots = int(count)
        except ValueError:
            raise PlacementError(
                f"--hosts: slot count of {host!r} is not a number: {count!r}") from None
        if slots < 1:
            raise PlacementError(f"--hosts: host {host!r} needs at least one slot, got {slots}")
        result.append(Slot(host, slots))
    return result


def local_host_names():
    """Names under which this machine runs ranks directly, without ssh."""
    hostname = socket.gethostname()
    return {"localhost", "127.0.0.1", "::1", hostname, hostname.split(".")[0]}


def place_ranks(size, slots=None, local_names=None):
    """Returns one RankPlace per rank; without slots every rank is local.

    Local ranks are numbered per machine: all names of this machine count as
    one host, and so do repeated entries of one remote name.
    """
    if slots is None:
        slots = [Slot("localhost", size)]
    total = sum(slot.slots for slot in slots)
    if size > total:
        raise PlacementError(f"-n {size} exceeds the {total} slot(s) given by --hosts")
    local_names = local_host_names() if local_names is None else local_names
    hosts = [slot.host for slot in slots for _ in range(slot.slots)][:size]
    machines = [host if host not in local_names else None for host in hosts]
    sizes = collections.Counter(machines)
    seen = collections.Counter()
    places = []
    for rank, (host, machine) in enumerate(zip(hosts, machines)):
        places.append(RankPlace(rank=rank, host=host, local_rank=seen[machine],
                                local_size=sizes[machine], remote=machine is not None))
        seen[machine] += 1
    return places
