"""Implementation of the rcoll-run launcher (see tools/rcoll-run for usage).

Modules: cli (arguments), placement (ranks onto hosts), spawn (rank
environments and command lines), daemon (the bootstrap service), output
(rank output prefixing), signal_catcher (signals as events of the main
loop), job (running, watching and stopping the ranks),
keeper (the front process and the keeper that runs the job), tree (parent-
death signals, the subreaper, killing descendants), main (the glue).
"""
