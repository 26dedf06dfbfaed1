"""scripts/check_layers.py on small source trees written for each case: it
must pass a tree that keeps the rules and name every planted violation
(file:line, the include, the rule) with a non-zero exit."""

import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "check_layers.py"


class CheckLayersTest(unittest.TestCase):
    def check(self, files):
        """Runs the check on a tree of {path: text}; returns (exit code, output lines)."""
        with tempfile.TemporaryDirectory() as root:
            for path, text in files.items():
                target = pathlib.Path(root, path)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(textwrap.dedent(text))
            run = subprocess.run([sys.executable, "-B", str(SCRIPT), "--root", root],
                                 capture_output=True, text=True, timeout=30)
        return run.returncode, run.stdout.splitlines()

    # A tree that keeps the rules: the base of every case.
    CLEAN = {
        "include/rcoll/errors.hpp": '#include "rcoll/types.hpp"\n',
        "src/common/deadline.hpp": "#include <chrono>\n",
        "src/store/store.hpp": '#include "common/deadline.hpp"\n#include "rcoll/errors.hpp"\n',
        "src/transport/tcp/peer.cpp": '#include "store/store.hpp"\n#include "transport/tcp/peer.hpp"\n',
        "src/CMakeLists.txt": "add_library(rcoll)\n",
    }

    def test_a_tree_that_keeps_the_rules_passes(self):
        code, lines = self.check(self.CLEAN)
        self.assertEqual(code, 0, lines)
        self.assertIn("no violation", lines[-1])

    def test_a_lower_layer_including_a_higher_one_is_named(self):
        code, lines = self.check({**self.CLEAN, "src/transport/rdma/connector.cpp": """\
            #include "transport/transport.hpp"
            // a comment
            #include "bootstrap/bootstrap.hpp"
            """})
        self.assertEqual(code, 1)
        self.assertEqual(lines, ['src/transport/rdma/connector.cpp:3: #include "bootstrap/bootstrap.hpp": '
                                 "transport may include only common, store, topology, transport and rcoll/"])

    def test_the_bottom_layer_includes_nothing_else(self):
        code, lines = self.check({**self.CLEAN, "src/common/log.cpp": '#include "topology/topology.hpp"\n'})
        self.assertEqual(code, 1)
        self.assertEqual(len(lines), 1, lines)
        self.assertTrue(lines[0].startswith('src/common/log.cpp:1: #include "topology/topology.hpp": '
                                            "common may include only common"), lines)

    def test_an_unknown_layer_fails(self):
        code, lines = self.check({**self.CLEAN, "src/plugins/loader.cpp": '#include "common/deadline.hpp"\n'})
        self.assertEqual(code, 1)
        self.assertEqual(len(lines), 1, lines)
        self.assertIn("src/plugins/: unknown layer", lines[0])

    def test_an_include_naming_no_layer_fails(self):
        code, lines = self.check({**self.CLEAN, "src/comm/comm.cpp": '#include "helpers.hpp"\n'})
        self.assertEqual(code, 1)
        self.assertIn('src/comm/comm.cpp:1: #include "helpers.hpp": an include from src/ must name a layer',
                      lines[0])

    def test_public_headers_include_only_public_headers(self):
        code, lines = self.check({**self.CLEAN, "include/rcoll/comm.hpp": '#include "comm/comm_impl.hpp"\n'})
        self.assertEqual(code, 1)
        self.assertEqual(lines, ['include/rcoll/comm.hpp:1: #include "comm/comm_impl.hpp": '
                                 "the public headers may include only rcoll/"])

    def test_the_python_binding_includes_only_the_public_api_and_its_own_files(self):
        binding = {**self.CLEAN, "python/src/buffers.cpp": '#include "buffers.hpp"\n#include "rcoll/types.hpp"\n'}
        self.assertEqual(self.check(binding)[0], 0)
        code, lines = self.check({**binding, "python/src/module.cpp": '#include "comm/comm_impl.hpp"\n'})
        self.assertEqual(code, 1)
        self.assertEqual(lines, ['python/src/module.cpp:1: #include "comm/comm_impl.hpp": '
                                 "the Python binding may include only rcoll/ and its own files"])

    def test_every_violation_is_listed(self):
        code, lines = self.check({**self.CLEAN,
                                  "src/store/a.hpp": '#include "bootstrap/x.hpp"\n#include "comm/y.hpp"\n',
                                  "src/diagnostics/b.cpp": '#include "bootstrap/bootstrap.hpp"\n'})
        self.assertEqual(code, 1)
        self.assertEqual([line.split(":")[0] + ":" + line.split(":")[1] for line in lines],
                         ["src/diagnostics/b.cpp:1", "src/store/a.hpp:1", "src/store/a.hpp:2"])


if __name__ == "__main__":
    unittest.main()
