"""Runs kill_job.py as a 3-rank job and judges it: rcoll-run must fail
(a rank was killed) and name rank 1, and ranks 0 and 2 must each have
raised rcoll.IoError within seconds (their "survivor" lines).

usage: check_kill.py RCOLL_RUN PYTHON KILL_JOB
"""

import re
import subprocess
import sys


def main(rcoll_run, python, job):
    result = subprocess.run([rcoll_run, "-n", "3", "--transport", "tcp", "--kill-grace", "20", "--", python, job],
                            capture_output=True, text=True, timeout=120)
    output = result.stdout + result.stderr
    print(output)
    problems = []
    if result.returncode == 0:
        problems.append("rcoll-run exited 0 although rank 1 was killed")
    if not re.search(r"rank 1\b.*(SIGKILL|signal 9|killed)", output, re.IGNORECASE):
        problems.append("rcoll-run did not name rank 1's death")
    for survivor in (0, 2):
        if not re.search(rf"survivor {survivor}: IoError after ([0-9.]+) s", output):
            problems.append(f"rank {survivor} did not raise rcoll.IoError in time")
    for problem in problems:
        print("check_kill: " + problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
