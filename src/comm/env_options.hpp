// Reads a communicator's Options from the environment a launcher sets up.
#pragma once

#include "rcoll/options.hpp"

namespace rcoll::comm {

// Rank, size, local rank and local size come from the first family present:
//   RCOLL_RANK / RCOLL_SIZE / RCOLL_LOCAL_RANK / RCOLL_LOCAL_SIZE    (rcoll-run)
//   SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID / SLURM_NTASKS_PER_NODE  (srun)
//   OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK / _LOCAL_SIZE          (mpirun)
//   RANK / WORLD_SIZE / LOCAL_RANK / LOCAL_WORLD_SIZE                 (torchrun)
// and none of them means a single-rank job. The bootstrap service is
// RCOLL_BOOTSTRAP=host:port, else MASTER_ADDR:MASTER_PORT; in the second
// case (or with RCOLL_BOOTSTRAP_SERVE=1) rank 0 hosts the service itself.
// Also read: RCOLL_JOB_TOKEN, RCOLL_TRANSPORT, RCOLL_TIMEOUT (seconds),
// RCOLL_SOCKET_IFNAME, RCOLL_ALLREDUCE_ALGO, RCOLL_BCAST_ALGO,
// RCOLL_SEGMENT_BYTES (a byte count: 524288, 512K), RCOLL_CHECK (0 or 1),
// RCOLL_CALIBRATE (0 or 1). A malformed value throws InvalidArgument naming
// the variable.
Options options_from_env();

}  // namespace rcoll::comm
