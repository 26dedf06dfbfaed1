// The environment module: every RCOLL_* variable the library reads, and
// every launcher's (rank and size, MASTER_*, TORCHELASTIC_*), is read
// here and nowhere else, into typed values. The layers below receive those
// values (TransportConfig, a placement request, a log level) and never read
// the environment themselves. A malformed value throws InvalidArgument
// naming the rank ("rank 3: ", or "rank unknown: " when the launcher's rank
// variable is the malformed one), the variable and what it expects.
// RCOLL_LOG and RCOLL_BIND are the exceptions: an unknown value is warned
// about, never fatal.
#pragma once

#include <optional>
#include <string>

#include "rcoll/options.hpp"
#include "topology/placement.hpp"
#include "transport/rdma/rdma_options.hpp"

namespace rcoll::comm {

// The communicator's Options (Comm::from_env). Rank, size, local rank and
// local size come from the first family present:
//   RCOLL_RANK / RCOLL_SIZE / RCOLL_LOCAL_RANK / RCOLL_LOCAL_SIZE    (rcoll-run)
//   SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID / SLURM_NTASKS_PER_NODE  (srun)
//   OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK / _LOCAL_SIZE          (mpirun)
//   RANK / WORLD_SIZE / LOCAL_RANK / LOCAL_WORLD_SIZE                 (torchrun)
// and none of them means a single-rank job; the local ones only guide CPU
// binding (every shared decision comes from the join cards). The bootstrap
// service is RCOLL_BOOTSTRAP=host:port, else MASTER_ADDR:MASTER_PORT; in
// the second case (or with RCOLL_BOOTSTRAP_SERVE=1) rank 0 hosts the
// service itself. Under torchrun, whose agent serves a store at
// MASTER_ADDR:MASTER_PORT already (torchrun_store_from_env, below), there
// is no service: `bootstrap` stays empty and host_bootstrap false, and
// Comm::from_env joins through that store. Also read: RCOLL_JOB_TOKEN,
// RCOLL_TRANSPORT, RCOLL_TIMEOUT (seconds), RCOLL_SOCKET_IFNAME,
// RCOLL_ALLREDUCE_ALGO, RCOLL_BCAST_ALGO, RCOLL_SEGMENT_BYTES (a byte
// count: 524288, 512K), RCOLL_CHECK (0 or 1), RCOLL_CALIBRATE (0 or 1).
Options options_from_env();

// Under torchrun, whose agent already serves a store (PyTorch's TCPStore)
// at MASTER_ADDR:MASTER_PORT, the ranks join through that store
// (store/tcp_store_client.hpp) instead of a service of rcoll's: when
// TORCHELASTIC_RUN_ID is set, TORCHELASTIC_USE_AGENT_STORE is "True" (as
// torchrun sets it with its default, static rendezvous; torch's own
// init_process_group asks the same) and RCOLL_BOOTSTRAP is unset. rcoll's
// keys go under rcoll/<TORCHELASTIC_RUN_ID>/<TORCHELASTIC_RESTART_COUNT>/,
// so that a restarted worker group never reads its predecessor's. nullopt
// otherwise: under torchrun's c10d or etcd rendezvous
// (TORCHELASTIC_USE_AGENT_STORE=False) MASTER_PORT is a free port, and rank
// 0 hosts rcoll's service there. `rank` names the rank in the errors
// (MASTER_ADDR or MASTER_PORT missing or malformed).
struct TorchrunStore {
  std::string address;  // MASTER_ADDR:MASTER_PORT
  std::string prefix;   // "rcoll/<run id>/<restart count>/"
};
std::optional<TorchrunStore> torchrun_store_from_env(int rank);

// How Comm::from_env places this process (docs/PLACEMENT.md): RCOLL_BIND
// (unset: none; an unknown policy is warned about and taken as none),
// RCOLL_REPORT_BINDINGS (1, true, yes or on), and the device whose
// locality counts: RCOLL_IB_DEV, else options.socket_ifname.
struct PlacementRequest {
  topology::BindPolicy policy = topology::BindPolicy::none;
  bool report = false;
  std::string device;
};
PlacementRequest placement_from_env(const Options& options);

// What applies to every communicator of the process, however it is made
// (Comm::from_env or Comm::create). `rank` (-1: unknown) names the rank in
// the errors.
struct ProcessSettings {
  std::optional<std::string> log_level;        // RCOLL_LOG (log::set_level_from checks the name)
  bool status_signal = false;                  // RCOLL_STATUS_SIGNAL=1: SIGUSR1 reports
  transport::rdma::RdmaOptions rdma;           // RCOLL_IB_* (docs/RDMA.md)
  std::optional<std::size_t> tcp_send_buffer;  // RCOLL_TCP_SNDBUF, a byte count
};
ProcessSettings process_settings_from_env(int rank);

// The RCOLL_IB_* part of the above, alone.
transport::rdma::RdmaOptions rdma_options_from_env();

}  // namespace rcoll::comm
