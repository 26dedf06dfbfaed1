#include "bootstrap/tcp_server.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>

#include "bootstrap/messages.hpp"
#include "bootstrap/server_loop.hpp"
#include "common/log.hpp"
#include "common/port_owner.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::bootstrap {

std::string to_string(BootstrapServer::Outcome outcome) {
  switch (outcome) {
    case BootstrapServer::Outcome::serving: return "serving";
    case BootstrapServer::Outcome::completed: return "completed";
    case BootstrapServer::Outcome::join_timed_out: return "join timed out";
    case BootstrapServer::Outcome::rank_lost: return "rank lost";
    case BootstrapServer::Outcome::stopped: return "stopped";
    case BootstrapServer::Outcome::failed: return "failed";
  }
  return "?";
}

namespace {

// Pending connections the kernel queues before accept(): room for a burst
// of ranks and flood connections alike (the loop accepts them quickly).
constexpr int listen_backlog = 1024;

bool address_in_use(const IoError& error) {
  // socket_util's causes end in "(errno N)" (net::errno_text).
  return error.cause().ends_with("(errno " + std::to_string(EADDRINUSE) + ")");
}

UniqueFd listen(const std::string& address, int host_rank) {
  auto where = net::parse_host_port(address);
  try {
    return net::listen_on(where.host, where.port, listen_backlog);
  } catch (const IoError& error) {
    if (!address_in_use(error)) throw IoError(host_rank, -1, "bootstrap service: " + error.step(), error.cause());
    throw IoError(host_rank, -1, "bootstrap service: listen on " + address,
                  "port " + std::to_string(where.port) + " is in use by " + net::port_owner(where.port) +
                      " (choose another port, or end that process)");
  }
}

}  // namespace

BootstrapServer::BootstrapServer(Config config) : config_(std::move(config)) {
  if (config_.size < 1 || static_cast<std::uint32_t>(config_.size) > wire::max_world_size)
    throw InvalidArgument("bootstrap server: world size " + std::to_string(config_.size) + " must be in [1, " +
                          std::to_string(wire::max_world_size) + "]");
  if (config_.job_token.size() > wire::max_token)
    throw InvalidArgument("bootstrap server: job token longer than " + std::to_string(wire::max_token) + " bytes");
  listen_fd_ = listen(config_.listen, config_.host_rank);
  address_ = net::local_address(listen_fd_.get());
  wake_fd_.reset(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!wake_fd_) throw IoError(-1, -1, "bootstrap server: eventfd", net::errno_text(errno));
  log::info("bootstrap: listening on {} for a job of {} ranks", address_, config_.size);
}

BootstrapServer::~BootstrapServer() {
  stop();
  if (thread_.joinable()) thread_.join();
}

void BootstrapServer::run() {
  ServerLoop::Settings settings{config_.size, config_.job_token, config_.join_timeout, config_.io_timeout,
                                config_.hello_timeout};
  ServerLoop loop(settings, listen_fd_.get(), wake_fd_.get(), stop_requested_, joined_);
  ServerLoop::Result result = loop.run();
  // Late clients now get "connection refused" (and retry until their
  // deadline) rather than sitting in a backlog nobody accepts from.
  listen_fd_.reset();
  finish(result.outcome, std::move(result.ranks), std::move(result.text));
}

void BootstrapServer::start() {
  thread_ = std::thread([this] {
    try {
      run();
    } catch (const std::exception& error) {
      log::error("bootstrap: server failed: {}", error.what());
      finish(Outcome::failed, {}, error.what());
    }
  });
}

void BootstrapServer::stop() noexcept {
  stop_requested_.store(true);
  std::uint64_t one = 1;
  // Nothing to do if the write fails: the loop also checks the flag at
  // least once a second.
  [[maybe_unused]] auto ignored = ::write(wake_fd_.get(), &one, sizeof(one));
}

void BootstrapServer::finish(Outcome outcome, std::vector<int> ranks, std::string text) {
  std::lock_guard lock(result_mutex_);
  outcome_ = outcome;
  failed_ranks_ = std::move(ranks);
  failure_ = std::move(text);
}

BootstrapServer::Outcome BootstrapServer::outcome() const {
  std::lock_guard lock(result_mutex_);
  return outcome_;
}

std::vector<int> BootstrapServer::failed_ranks() const {
  std::lock_guard lock(result_mutex_);
  return failed_ranks_;
}

std::string BootstrapServer::failure() const {
  std::lock_guard lock(result_mutex_);
  return failure_;
}

}  // namespace rcoll::bootstrap
