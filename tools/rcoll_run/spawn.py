"""What each rank is started with: its environment and its command line.

Local ranks inherit the launcher's environment plus the job variables.
Remote ranks run as `SSH HOST sh -c SCRIPT ... env VAR=... program args`:
the job variables travel on the (shell-quoted) command line, except the job
token, which the remote shell reads from ssh's stdin so that it never shows
in any process's argv on either machine.
"""

import dataclasses
import os
import shlex
import shutil

# Variables of the launcher itself; never passed on to ranks on other hosts.
LAUNCHER_ONLY = ("RCOLL_BOOTSTRAPD", "RCOLL_SSH")
TOKEN_VAR = "RCOLL_JOB_TOKEN"

# $1 is the launcher's working directory (used when it exists remotely, as
# on a shared file system); the token arrives as the first line of stdin.
REMOTE_SCRIPT = ('cd "$1" 2>/dev/null; shift; '
                 f'IFS= read -r {TOKEN_VAR} && export {TOKEN_VAR} && exec "$@"')


class ProgramError(Exception):
    """The program to run does not exist or cannot be executed."""


@dataclasses.dataclass(frozen=True)
class JobSettings:
    size: int
    bootstrap: str          # "host:port" the ranks connect to
    token: str
    transport: str
    timeout: str = None     # RCOLL_TIMEOUT in seconds, or None to inherit
    bind: str = "auto"      # RCOLL_BIND: none|core|numa|nic|auto (applied by the library)
    report_bindings: bool = False  # sets RCOLL_REPORT_BINDINGS=1


@dataclasses.dataclass(frozen=True)
class Launch:
    argv: list
    env: dict
    stdin_data: bytes = None  # written to the rank's stdin, then closed


def format_seconds(value):
    """7.0 -> "7", 0.5 -> "0.5" (the form the library's parser expects)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def check_program(program, env, what="program"):
    """Raises ProgramError unless `program` can be executed on this host."""
    if "/" not in program:
        if shutil.which(program, path=env.get("PATH", os.defpath)) is None:
            raise ProgramError(f"{what} not found on PATH: {program}")
        return
    if not os.path.exists(program):
        raise ProgramError(f"{what} not found: {program}")
    if os.path.isdir(program) or not os.access(program, os.X_OK):
        raise ProgramError(f"{what} is not executable: {program}")


def rank_variables(place, job):
    """The job variables of one rank, all but the token."""
    variables = {
        "RCOLL_RANK": str(place.rank),
        "RCOLL_SIZE": str(job.size),
        "RCOLL_LOCAL_RANK": str(place.local_rank),
        "RCOLL_LOCAL_SIZE": str(place.local_size),
        "RCOLL_BOOTSTRAP": job.bootstrap,
        "RCOLL_TRANSPORT": job.transport,
        "RCOLL_BIND": job.bind,
        # The library answers SIGUSR1 with a status line (rcoll-run forwards it).
        "RCOLL_STATUS_SIGNAL": "1",
    }
    if job.timeout is not None:
        variables["RCOLL_TIMEOUT"] = job.timeout
    if job.report_bindings:
        variables["RCOLL_REPORT_BINDINGS"] = "1"
    return variables


def local_launch(place, job, program_argv, base_env):
    env = dict(base_env)
    env.update(rank_variables(place, job))
    env[TOKEN_VAR] = job.token
    return Launch(argv=list(program_argv), env=env)


def forwarded_variables(base_env):
    """The user's own RCOLL_* settings (RCOLL_LOG, ...) for remote ranks."""
    return {name: value for name, value in base_env.items()
            if name.startswith("RCOLL_") and name not in LAUNCHER_ONLY
            and name != TOKEN_VAR}


def remote_launch(place, job, program_argv, base_env, ssh_argv, cwd):
    variables = forwarded_variables(base_env)
    variables.update(rank_variables(place, job))
    assignments = [f"{name}={value}" for name, value in sorted(variables.items())]
    words = ["sh", "-c", REMOTE_SCRIPT, "rcoll-rank", cwd, "env", *assignments, *program_argv]
    remote_command = " ".join(shlex.quote(word) for word in words)
    env = {name: value for name, value in base_env.items() if name != TOKEN_VAR}
    return Launch(argv=[*ssh_argv, place.host, remote_command], env=env,
                  stdin_data=job.token.encode() + b"\n")
