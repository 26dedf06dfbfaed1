"""usage: check_dlopen.py LIBRARY

Loads LIBRARY (librcoll.so) with dlopen through ctypes in this process and
checks that its dynamic section has no STATIC_TLS flag. Exit status 0 when
both hold; otherwise 1, naming what failed."""

import ctypes
import subprocess
import sys


def main():
    library = sys.argv[1]
    failures = []
    try:
        ctypes.CDLL(library, mode=ctypes.RTLD_LOCAL)
    except OSError as error:
        failures.append(f"dlopen failed: {error}")
    dynamic = subprocess.run(["readelf", "-d", library], capture_output=True, text=True, check=True).stdout
    flags = [line for line in dynamic.splitlines() if "(FLAGS)" in line]
    if any("STATIC_TLS" in line for line in flags):
        failures.append("the library uses the initial-exec TLS model (FLAGS: STATIC_TLS): "
                        "a thread_local with [[gnu::tls_model(\"initial-exec\")]], or a large one, is back")
    for failure in failures:
        print(f"check_dlopen: {library}: {failure}", file=sys.stderr)
    if not failures:
        print(f"check_dlopen: {library} loads with dlopen and needs no static TLS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
