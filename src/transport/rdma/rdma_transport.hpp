// RDMA backend of the transport interface (see transport/transport.hpp), over
// rdma-core libibverbs and librdmacm: one RC queue pair per connected peer,
// eager SENDs into pre-posted bounce buffers with credit flow control, and a
// receiver-driven zero-copy rendezvous (RDMA WRITE, the last one WITH_IMM)
// for messages above the eager limit. Protocol and design: docs/RDMA.md.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "transport/factory.hpp"
#include "transport/rdma/rdma_options.hpp"

namespace rcoll::transport {

namespace rdma {

// Counters for tests and diagnostics.
struct RdmaStats {
  std::uint64_t eager_messages = 0;       // sent eagerly (inline or from a bounce buffer)
  std::uint64_t inline_messages = 0;      // of which inline
  std::uint64_t rendezvous_messages = 0;  // sent by RDMA WRITE
  std::uint64_t rdma_writes = 0;          // write work requests posted
  std::uint64_t credit_messages = 0;      // explicit credit returns
  std::uint64_t unexpected_messages = 0;  // arrived before their receive
  std::uint64_t mr_registrations = 0;     // ibv_reg_mr calls for user memory
  std::uint64_t mr_cache_hits = 0;
  std::uint64_t mr_cache_stale = 0;       // cached entries found stale and replaced
  bool mr_cache_validated = false;        // page identity checks available (see docs/RDMA.md)
  std::uint64_t cq_events = 0;            // completion-channel wake-ups (event polling)
  std::uint64_t keepalive_probes = 0;     // 0-byte RDMA WRITEs sent to quiet peers
  int connected_peers = 0;
};

// A long-lived registration of an application buffer: while it lives, every
// send from (and receive into) a range inside it uses it instead of a
// per-operation registration. The application promises that the memory stays
// allocated and mapped while the registration lives. A no-op on non-RDMA
// transports. It may outlive the transport (it then does nothing).
class BufferRegistration {
 public:
  BufferRegistration() = default;
  ~BufferRegistration();
  BufferRegistration(BufferRegistration&&) noexcept;
  BufferRegistration& operator=(BufferRegistration&&) noexcept;
  BufferRegistration(const BufferRegistration&) = delete;
  BufferRegistration& operator=(const BufferRegistration&) = delete;

  bool active() const noexcept { return id_ != 0; }

  struct Owner;  // the transport's registration cache, weakly referenced
  BufferRegistration(std::weak_ptr<Owner> owner, std::uint64_t id) : owner_(std::move(owner)), id_(id) {}

 private:
  std::weak_ptr<Owner> owner_;
  std::uint64_t id_ = 0;
};

}  // namespace rdma

// Opens the selected device and readies the transport; connections are made
// on first use. Throws IoError (step "rdma device selection") with a one-line
// reason when RDMA cannot run here, so that `auto` can fall back to TCP.
std::unique_ptr<Transport> make_rdma_transport(const TransportConfig& config);
std::unique_ptr<Transport> make_rdma_transport(const TransportConfig& config, const rdma::RdmaOptions& options);

// Why RDMA with `options` cannot run here (no device, no ACTIVE port, no
// RoCE v2 GID with an IPv4 address, memlock limit too low, ...), in one
// line; empty if it can. factory.hpp's rdma_unavailable_reason is this in
// builds with RDMA.
namespace rdma {
std::string unavailable_reason(const RdmaOptions& options);
}

// Registers [addr, addr + bytes) for sends and receives for as long as the
// returned object lives (see BufferRegistration). Throws IoError if the
// device refuses (e.g. the memlock limit).
rdma::BufferRegistration register_buffer(Transport& transport, void* addr, std::size_t bytes);

// The counters of an RDMA transport; nullopt for other backends.
std::optional<rdma::RdmaStats> rdma_stats(const Transport& transport);

}  // namespace rcoll::transport
