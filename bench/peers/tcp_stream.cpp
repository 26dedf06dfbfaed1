// tcp_stream: single-stream TCP bandwidth over 127.0.0.1 with plain
// sockets, the physical limit of one loopback connection that
// bench/compare shows next to the collectives' busbw. A forked receiver
// reads every byte into its buffer; per size and repetition the sender
// writes --min-total bytes (whole messages of `size` bytes) and stops the
// clock when the receiver's 1-byte acknowledgement arrives. Default socket
// buffers; every socket wait times out after 60 s (exit 1, never a hang).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "common/aligned_buffer.hpp"
#include "common/limit_report.hpp"

namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {
    if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { ::close(fd_); }
  int get() const { return fd_; }

 private:
  int fd_;
};

void check(int rc, const char* what) {
  if (rc < 0) throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

void set_timeouts(int fd) {
  timeval tv{60, 0};
  check(::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv), "SO_RCVTIMEO");
  check(::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv), "SO_SNDTIMEO");
}

void send_all(int fd, const std::byte* data, std::size_t bytes) {
  while (bytes > 0) {
    const ssize_t n = ::send(fd, data, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    check(static_cast<int>(n), "send");
    data += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void recv_all(int fd, std::byte* data, std::size_t bytes) {
  while (bytes > 0) {
    const ssize_t n = ::recv(fd, data, bytes, 0);
    if (n < 0 && errno == EINTR) continue;
    check(static_cast<int>(n), "recv");
    if (n == 0) throw std::runtime_error("recv: peer closed the connection");
    data += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

// The receiver's whole life: every repetition of every size (plus one
// warm-up repetition each), then exit.
int receive(const rcoll::peers::LimitOptions& options, sockaddr_in address) {
  try {
    Fd fd(::socket(AF_INET, SOCK_STREAM, 0));
    set_timeouts(fd.get());
    check(::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), "connect");
    for (std::size_t bytes : options.sizes) {
      rcoll::bench::AlignedBuffer buffer(bytes);
      for (int rep = 0; rep <= options.reps; ++rep) {
        for (std::size_t i = 0; i < rcoll::peers::transfers_for(options, bytes); ++i)
          recv_all(fd.get(), buffer.data(), bytes);
        send_all(fd.get(), buffer.data(), 1);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tcp_stream receiver: %s\n", e.what());
    return 1;
  }
}

std::vector<rcoll::peers::LimitResult> send_sizes(const rcoll::peers::LimitOptions& options, int fd) {
  std::vector<rcoll::peers::LimitResult> results;
  for (std::size_t bytes : options.sizes) {
    rcoll::bench::AlignedBuffer buffer(bytes);
    std::memset(buffer.data(), 3, bytes);
    const std::size_t transfers = rcoll::peers::transfers_for(options, bytes);
    rcoll::peers::LimitResult result{bytes, {}};
    for (int rep = 0; rep <= options.reps; ++rep) {  // rep 0 warms up
      const auto start = std::chrono::steady_clock::now();
      for (std::size_t i = 0; i < transfers; ++i) send_all(fd, buffer.data(), bytes);
      std::byte ack{};
      recv_all(fd, &ack, 1);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (rep > 0) result.gbps.push_back(static_cast<double>(transfers * bytes) / seconds / 1e9);
    }
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rcoll::peers;
  const LimitOptions options = parse_limit_options(argc, argv, "tcp_stream",
                                                   "single-stream TCP bandwidth over 127.0.0.1 (two processes)");
  try {
    Fd listener(::socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    check(::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), "bind");
    check(::listen(listener.get(), 1), "listen");
    socklen_t length = sizeof address;
    check(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length), "getsockname");
    std::fflush(stdout);
    const pid_t child = ::fork();
    check(child, "fork");
    if (child == 0) ::_exit(receive(options, address));
    Fd connection(::accept(listener.get(), nullptr, nullptr));
    set_timeouts(connection.get());
    const auto results = send_sizes(options, connection.get());
    int status = 0;
    ::waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("the receiver failed");
    report_limits("tcp_stream", options, results);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tcp_stream: %s\n", e.what());
    return 1;
  }
}
