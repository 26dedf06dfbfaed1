// gloo_bench: gloo::allreduce / gloo::broadcast over Gloo's TCP transport on
// 127.0.0.1, measured by the same loop, options and output as rcoll-bench
// (common/peer_runner.hpp), for the side-by-side comparison (bench/compare).
// Gloo has no launcher: start `size` processes with PEER_RANK (0..size-1),
// PEER_SIZE and PEER_STORE (an empty directory shared by the job; Gloo's
// file store rendezvous). bench/compare does this.
// Exit status: 0, 1 for wrong elements or a Gloo error, 2 for a bad
// command line or environment.
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/args.hpp"
#include "common/json.hpp"
#include "common/peer_runner.hpp"

namespace rcoll::peers {
namespace {

using ReduceFn = void (*)(void*, const void*, const void*, std::size_t);

// Every Gloo operation may wait this long (rcoll's default RCOLL_TIMEOUT).
constexpr std::chrono::seconds kTimeout{300};

struct PeerEnv {
  int rank = 0;
  int size = 0;
  std::string store;
};

std::optional<PeerEnv> read_env() {
  const char* rank = std::getenv("PEER_RANK");
  const char* size = std::getenv("PEER_SIZE");
  const char* store = std::getenv("PEER_STORE");
  if (!rank || !size || !store || !*store) return std::nullopt;
  PeerEnv env{std::atoi(rank), std::atoi(size), store};
  if (env.size < 1 || env.rank < 0 || env.rank >= env.size) return std::nullopt;
  return env;
}

// Options objects are built by prepare() (buffer registration stays out of
// the timed loop) and reused by every run_once() of that size.
class GlooBackend {
 public:
  explicit GlooBackend(const PeerEnv& env) : context_(std::make_shared<gloo::rendezvous::Context>(env.rank, env.size)) {
    gloo::transport::tcp::attr attr("127.0.0.1");
    auto device = gloo::transport::tcp::CreateDevice(attr);
    gloo::rendezvous::FileStore store(env.store);
    context_->setTimeout(kTimeout);
    context_->connectFullMesh(store, device);
  }

  int rank() const { return context_->rank; }
  int size() const { return context_->size; }

  void prepare(PeerOp op, const float* in, float* out, std::size_t count, int root) {
    allreduce_.reset();
    bcast_.reset();
    if (op == PeerOp::bcast) {
      bcast_.emplace(context_);
      bcast_->setOutput(out, count);
      bcast_->setRoot(root);
      return;
    }
    allreduce_.emplace(context_);
    // Gloo's input pointers are non-const; it only reads them.
    if (in != out) allreduce_->setInput(const_cast<float*>(in), count);
    allreduce_->setOutput(out, count);
    allreduce_->setReduceFunction(static_cast<ReduceFn>(&gloo::sum<float>));
  }

  void run_once() {
    if (allreduce_) gloo::allreduce(*allreduce_);
    else gloo::broadcast(*bcast_);
  }

  void barrier() {
    gloo::BarrierOptions options(context_);
    gloo::barrier(options);
  }

  void max_over_ranks(std::vector<double>& seconds) {
    gloo::AllreduceOptions options(context_);
    options.setOutput(seconds.data(), seconds.size());
    options.setReduceFunction(static_cast<ReduceFn>(&gloo::max<double>));
    gloo::allreduce(options);
  }

  void sum_over_ranks(std::uint64_t& errors) {
    gloo::AllreduceOptions options(context_);
    options.setOutput(&errors, 1);
    options.setReduceFunction(static_cast<ReduceFn>(&gloo::sum<std::uint64_t>));
    gloo::allreduce(options);
  }

 private:
  std::shared_ptr<gloo::rendezvous::Context> context_;
  std::optional<gloo::AllreduceOptions> allreduce_;
  std::optional<gloo::BroadcastOptions> bcast_;
};

}  // namespace
}  // namespace rcoll::peers

int main(int argc, char** argv) {
  using namespace rcoll::peers;
  PeerRunInfo info;
  if (auto status = read_command_line("gloo_bench", argc, argv, info.options)) return *status;
  const auto env = read_env();
  if (!env) {
    std::fprintf(stderr, "gloo_bench: set PEER_RANK, PEER_SIZE and PEER_STORE (see the top of gloo_bench.cpp)\n");
    return 2;
  }
  if (info.options.root >= env->size) {
    std::fprintf(stderr, "gloo_bench: --root %d is not a rank\n", info.options.root);
    return 2;
  }
  try {
    GlooBackend backend(*env);
    info.library = "gloo";
    info.version = "Gloo (Debian libgloo-dev), TCP transport on 127.0.0.1";
    info.transport = "tcp";
    info.ranks = backend.size();
    info.host = rcoll::bench::host_name();
    return run_peer_sweep(backend, info);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gloo_bench: rank %d: %s\n", env->rank, e.what());
    return 1;
  }
}
