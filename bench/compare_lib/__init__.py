"""Side-by-side comparison of rcoll with Open MPI, MPICH and Gloo (bench/compare)."""
