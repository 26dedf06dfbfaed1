"""Command-line arguments of rcoll-run; every check that needs no process."""

import argparse
import math
import os
import re

from . import placement

# The library applies them (src/topology/); see the usage text of rcoll-run.
BIND_POLICIES = ("none", "core", "numa", "nic", "auto")
TRANSPORTS = ("auto", "tcp", "rdma")


# RCOLL_TIMEOUT as the library reads it (src/comm/environment.cpp): seconds,
# more than 0 and at most 1e7, counted in whole milliseconds. Its default:
# Options::timeout (include/rcoll/options.hpp).
LIBRARY_TIMEOUT_DEFAULT_S = 300.0
LIBRARY_TIMEOUT_MIN_S = 0.001
LIBRARY_TIMEOUT_MAX_S = 1e7
_DECIMAL = re.compile(r"^[+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$")


def _positive_seconds(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def library_seconds(text):
    """`text` as a timeout the library accepts, in seconds; raises
    ValueError saying what is accepted and why `text` is not."""
    if not _DECIMAL.match(text):
        raise ValueError(f"{text!r} is not a positive number of seconds such as 30 or 2.5")
    value = float(text)
    if value < LIBRARY_TIMEOUT_MIN_S:
        raise ValueError(f"{text!r} is below {LIBRARY_TIMEOUT_MIN_S:g} s: the library counts "
                         "timeouts in whole milliseconds")
    if value > LIBRARY_TIMEOUT_MAX_S:
        raise ValueError(f"{text!r} is above {LIBRARY_TIMEOUT_MAX_S:.0f} s (about 115 days), "
                         "the longest timeout the library and the bootstrap service accept")
    return value


def _library_timeout(text):
    try:
        return library_seconds(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def join_window(timeout, environ):
    """The bootstrap service's join window in seconds: the ranks' own call
    timeout, so that a rank that may take that long to start is waited for:
    --timeout, else an exported RCOLL_TIMEOUT, else the library's default.
    Raises ValueError for an RCOLL_TIMEOUT the ranks would refuse too."""
    if timeout is not None:
        return timeout
    exported = environ.get("RCOLL_TIMEOUT")
    if exported:
        try:
            return library_seconds(exported)
        except ValueError as error:
            raise ValueError(f"RCOLL_TIMEOUT (exported): {error}; the ranks would refuse it "
                             "too") from None
    return LIBRARY_TIMEOUT_DEFAULT_S


def _build_parser():
    p = argparse.ArgumentParser(
        prog="rcoll-run",
        usage="%(prog)s -n N [options] [--] program [args...]",
        description="Run an rcoll job: N ranks of a program, with the bootstrap service.",
        epilog="Signals: SIGINT/SIGTERM/SIGHUP are forwarded to every rank. SIGUSR1 asks every "
               "rank for its state: each prints one 'rcoll status:' line (what it waits for, or "
               "its last call); RCOLL_STATUS_SIGNAL=1 is set for this. A rank that called "
               "comm.abort(reason) exits with status 70 and is reported with its reason; the "
               "others are stopped and rcoll-run exits non-zero.")
    p.add_argument("-n", "--np", dest="size", type=int, metavar="N",
                   help="number of ranks (default with --hosts: all slots)")
    p.add_argument("--transport", choices=TRANSPORTS,
                   help="sets RCOLL_TRANSPORT (default: inherited, else auto)")
    p.add_argument("--timeout", type=_library_timeout, metavar="S",
                   help="per-operation timeout of the library (RCOLL_TIMEOUT, 0.001 to "
                        "10000000) and the bootstrap service's join window (default: an "
                        "exported RCOLL_TIMEOUT, else the library's 300 s)")
    p.add_argument("--job-timeout", type=_positive_seconds, metavar="S",
                   help="wall-clock limit of the whole job; on expiry exit 124")
    p.add_argument("--kill-grace", type=_positive_seconds, default=3.0, metavar="S",
                   help="seconds between SIGTERM and SIGKILL when stopping ranks (default 3)")
    p.add_argument("--bind", metavar="POLICY",
                   help="where each rank runs (RCOLL_BIND): none, core (one core per "
                        "local rank, round-robin), numa (round-robin over NUMA nodes), "
                        "nic (cores near the rank's network device; falls back to core), "
                        "auto (core when a host's ranks fill its cores, else none); "
                        "default: inherited, else auto")
    p.add_argument("--report-bindings", action="store_true",
                   help="each rank prints its binding, memory node and device's NUMA "
                        "node on stderr (RCOLL_REPORT_BINDINGS=1)")
    p.add_argument("--hosts", metavar="H:SLOTS,...",
                   help="place ranks on hosts, filling them in order")
    p.add_argument("--ssh", metavar="CMD",
                   help="remote shell command (default: $RCOLL_SSH, else ssh)")
    p.add_argument("--bootstrap-listen", metavar="HOST:PORT",
                   help="address the bootstrap service listens on (default "
                        "127.0.0.1:0, or 0.0.0.0:0 when any host is remote)")
    p.add_argument("--bootstrap-host", metavar="HOST",
                   help="address ranks use to reach the bootstrap service "
                        "(default: this host's IP when any host is remote)")
    p.add_argument("--tag-output", action=argparse.BooleanOptionalAction, default=True,
                   help="prefix each output line with '[rank] ' (default on)")
    p.add_argument("command", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return p


def parse_args(argv):
    """Returns the options; exits with status 2 and a message on bad ones.

    Adds `slots` (list of placement.Slot, or None without --hosts) and
    `join_window` (join_window()); `bind` is --bind, else $RCOLL_BIND, else
    "auto".
    """
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("no program given")
    if args.bind is None:
        source, args.bind = "RCOLL_BIND", os.environ.get("RCOLL_BIND") or "auto"
    else:
        source = "--bind"
    if args.bind not in BIND_POLICIES:
        parser.error(f"{source} {args.bind!r} is not a binding policy; "
                     f"choose one of {', '.join(BIND_POLICIES)}")
    try:
        args.slots = placement.parse_hosts(args.hosts) if args.hosts is not None else None
        args.join_window = join_window(args.timeout, os.environ)
    except (placement.PlacementError, ValueError) as error:
        parser.error(str(error))
    if args.size is None:
        if args.slots is None:
            parser.error("-n N is required (the number of ranks)")
        args.size = sum(slot.slots for slot in args.slots)
    if args.size < 1:
        parser.error(f"-n must be at least 1, got {args.size}")
    return args
