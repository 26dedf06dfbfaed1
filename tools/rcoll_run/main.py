"""rcoll-run's steps: check everything, start the bootstrap service, run the
ranks, clean up. Exit codes are listed in tools/rcoll-run."""

import os
import secrets
import shlex
import signal

from . import cli, daemon, job, keeper, placement, procs, spawn, tree
from .signal_catcher import Interrupted, SignalCatcher
from .output import OutputPump

EXIT_USAGE = 2
EXIT_NOT_FOUND = 127
EXIT_LAUNCHER = 1


def main(argv, script_dir):
    """Returns the exit code, in the keeper; the front exits in
    keeper.start_keeper() with the keeper's status."""
    args = cli.parse_args(argv)
    try:
        places = placement.place_ranks(args.size, args.slots)
        ssh_argv = _ssh_command(args)
    except (placement.PlacementError, ValueError) as error:
        procs.say(str(error))
        return EXIT_USAGE
    any_remote = any(place.remote for place in places)
    try:
        if not all(place.remote for place in places):
            spawn.check_program(args.command[0], os.environ)
        if any_remote:
            spawn.check_program(ssh_argv[0], os.environ, what="remote shell (--ssh)")
    except spawn.ProgramError as error:
        procs.say(str(error))
        return EXIT_NOT_FOUND
    lifeline = keeper.start_keeper()
    signals = SignalCatcher()
    keeper.release_signals()
    try:
        return _run_with_daemon(args, places, ssh_argv, signals, lifeline, script_dir)
    except keeper.FrontGone as gone:
        procs.say(f"{gone}; stopping before any rank started")
        return 128 + signal.SIGKILL
    except daemon.DaemonError as error:
        procs.say(f"bootstrap service: {error}")
        return EXIT_LAUNCHER
    except Interrupted as interruption:
        procs.say(f"received {interruption}; stopping before any rank started")
        return 128 + interruption.signum


def _ssh_command(args):
    text = args.ssh or os.environ.get("RCOLL_SSH") or "ssh"
    words = shlex.split(text)
    if not words:
        raise ValueError(f"--ssh / RCOLL_SSH is empty: {text!r}")
    return words


def _run_with_daemon(args, places, ssh_argv, signals, lifeline, script_dir):
    any_remote = any(place.remote for place in places)
    token = secrets.token_hex(16)
    timeout = spawn.format_seconds(args.timeout) if args.timeout else None
    listen = args.bootstrap_listen or ("0.0.0.0:0" if any_remote else "127.0.0.1:0")
    path = daemon.find_bootstrapd(script_dir, os.environ)
    def give_up_if_told():  # a forwarded signal, or the front's death
        signals.check()
        lifeline.check()

    join_window = spawn.format_seconds(args.join_window)
    bootstrap = daemon.BootstrapDaemon(path, args.size, listen, token, join_window,
                                       check=give_up_if_told)
    try:
        address = daemon.published_address(bootstrap.host, bootstrap.port,
                                           args.bootstrap_host, any_remote)
        transport = args.transport or os.environ.get("RCOLL_TRANSPORT") or "auto"
        settings = spawn.JobSettings(args.size, address, token, transport, timeout,
                                     bind=args.bind, report_bindings=args.report_bindings)
        pump = OutputPump()
        bootstrap.attach(pump)
        ranks = job.Job(pump, signals, bootstrap, args.kill_grace, args.job_timeout, lifeline)
        _start_ranks(ranks, places, settings, args, ssh_argv)
        return ranks.run()
    finally:
        bootstrap.stop(grace_s=1.0)
        # Job.run() did it already; this is for an end before any rank ran.
        tree.kill_descendants()


def _start_ranks(ranks, places, settings, args, ssh_argv):
    for place in places:
        if place.remote:
            launch = spawn.remote_launch(place, settings, args.command, os.environ,
                                         ssh_argv, os.getcwd())
        else:
            launch = spawn.local_launch(place, settings, args.command, os.environ)
        try:
            ranks.start_rank(place, launch, args.tag_output)
        except OSError as error:
            ranks.stop(EXIT_LAUNCHER, f"cannot start rank {place.rank} on {place.host} "
                                      f"({launch.argv[0]}): {error.strerror or error}")
            return
