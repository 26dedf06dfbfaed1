"""python3 -m rcoll.run: rcoll-run, the job launcher, from the package.

    python3 -m rcoll.run -n 4 -- python3 train.py

Takes rcoll-run's arguments (python3 -m rcoll.run --help). The launcher's
own files are found through rcoll/_paths.py, which the build writes (the
source tree's tools/ and the build tree's tools/ for a build-tree import;
the installed libexec/rcoll and bin for an installed package).
"""

import sys

from . import _paths


def main(argv=None):
    sys.path.insert(0, _paths.LAUNCHER_PACKAGE_PARENT)
    from rcoll_run.main import main as launch  # noqa: E402 (the path is set just above)

    return launch(sys.argv[1:] if argv is None else argv, _paths.LAUNCHER_SCRIPT_DIR)


if __name__ == "__main__":
    sys.exit(main())
