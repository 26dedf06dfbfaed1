// rcoll-bootstrapd: the bootstrap rank service of one job, as a process.
//
//   RCOLL_JOB_TOKEN=... rcoll-bootstrapd --size N [--listen HOST:PORT] [--join-timeout SECONDS]
//
// Prints exactly one line "RCOLL_BOOTSTRAP=<host>:<port>" on stdout once it
// listens, then serves. The job token comes from the environment only (argv
// is visible to every user of the machine). Exit status: 0 when the job
// ended normally (every rank disconnected after it formed) or on
// SIGTERM/SIGINT; 1 when the job failed (ranks never joined, a rank was
// lost before the job formed) or the server could not start; 2 on bad
// arguments. Logs go to stderr (level from RCOLL_LOG).
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "bootstrap/messages.hpp"
#include "bootstrap/tcp_server.hpp"
#include "common/log.hpp"
#include "rcoll/errors.hpp"

namespace {

using rcoll::bootstrap::BootstrapServer;

constexpr int exit_job_failed = 1;
constexpr int exit_usage = 2;

std::atomic<BootstrapServer*> running_server{nullptr};
std::atomic<bool> stop_signalled{false};

// Async-signal-safe: atomics and BootstrapServer::stop() only. A signal
// that arrives before the server exists is remembered in the flag.
extern "C" void on_signal(int) {
  stop_signalled.store(true);
  if (auto* server = running_server.load()) server->stop();
}

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "rcoll-bootstrapd: " << problem << "\n"
            << "usage: RCOLL_JOB_TOKEN=<token> rcoll-bootstrapd --size N [--listen HOST:PORT] "
               "[--join-timeout SECONDS]\n";
  std::exit(exit_usage);
}

double parse_number(const std::string& flag, const char* text) {
  if (text == nullptr) usage(flag + " needs a value");
  char* end = nullptr;
  double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(value >= 0) || value > 1e7)
    usage(flag + " expects a non-negative number, got '" + text + "'");
  return value;
}

BootstrapServer::Config parse_args(int argc, char** argv) {
  BootstrapServer::Config config;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (flag == "--help" || flag == "-h") usage("help requested");
    if (flag == "--size") {
      double size = parse_number(flag, value);
      if (size < 1 || size != static_cast<int>(size)) usage("--size must be a positive integer");
      config.size = static_cast<int>(size);
    } else if (flag == "--listen") {
      if (value == nullptr) usage("--listen needs HOST:PORT");
      config.listen = value;
    } else if (flag == "--join-timeout") {
      config.join_timeout = std::chrono::milliseconds(static_cast<long long>(parse_number(flag, value) * 1000));
    } else {
      usage("unknown argument '" + flag + "'");
    }
    ++i;
  }
  if (config.size < 1) usage("--size is required");
  const char* token = std::getenv("RCOLL_JOB_TOKEN");
  if (token == nullptr || *token == '\0') usage("RCOLL_JOB_TOKEN is not set");
  config.job_token = token;
  return config;
}

void install_signal_handlers() {
  struct sigaction action{};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

int report(const BootstrapServer& server) {
  switch (server.outcome()) {
    case BootstrapServer::Outcome::completed:
    case BootstrapServer::Outcome::stopped:
      return 0;
    case BootstrapServer::Outcome::join_timed_out:
      std::cerr << "rcoll-bootstrapd: ranks never joined: "
                << rcoll::bootstrap::wire::format_ranks(server.failed_ranks()) << "\n";
      return exit_job_failed;
    default:
      std::cerr << "rcoll-bootstrapd: job failed: " << server.failure() << "\n";
      return exit_job_failed;
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto config = parse_args(argc, argv);
  if (const char* level = std::getenv("RCOLL_LOG"); level != nullptr && *level != '\0')
    rcoll::log::set_level_from("RCOLL_LOG", level);
  install_signal_handlers();
  try {
    BootstrapServer server(config);
    std::printf("RCOLL_BOOTSTRAP=%s\n", server.address().c_str());
    std::fflush(stdout);
    running_server.store(&server);
    // Unpublished before `server` dies, whichever way this block is left.
    struct Unpublish {
      ~Unpublish() { running_server.store(nullptr); }
    } unpublish;
    if (stop_signalled.load()) server.stop();
    server.run();
    return report(server);
  } catch (const rcoll::InvalidArgument& error) {
    std::cerr << "rcoll-bootstrapd: " << error.what() << "\n";
    return exit_usage;
  } catch (const rcoll::IoError& error) {
    // Not "rank -1: ...": the daemon is no rank.
    std::cerr << "rcoll-bootstrapd: " << error.step() << ": " << error.cause() << "\n";
    return exit_job_failed;
  } catch (const rcoll::Error& error) {
    std::cerr << "rcoll-bootstrapd: " << error.what() << "\n";
    return exit_job_failed;
  }
}
