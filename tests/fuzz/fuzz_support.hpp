// Shared helpers of the libFuzzer targets (tests/fuzz/README.md).
//
// FUZZ_CHECK: an invariant of the code under test. A violation aborts, which
// libFuzzer reports as a crash and saves the input (unlike assert, it stays
// on in release builds).
// Input: consumes the fuzzer's bytes front to back; past the end every read
// yields zeros/empty, so a target never has to check lengths itself.
// SocketPair: a connected non-blocking AF_UNIX stream pair, so that code
// which reads a socket (the bootstrap server's sessions, the TCP
// transport's handshake and receive stream) is fed the fuzzer's bytes with
// no network involved.
#pragma once

#include <sys/socket.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/fd.hpp"
#include "common/log.hpp"

#define FUZZ_CHECK(condition)                                                                   \
  do {                                                                                          \
    if (!(condition)) {                                                                         \
      std::fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                             \
    }                                                                                           \
  } while (false)

namespace rcoll::fuzz {

// Called from every target's LLVMFuzzerInitialize.
// - Library log lines (refusals, protocol errors) would dominate the run
//   time and bury libFuzzer's own output: off.
// - The TCP transport's buffers come from src/topology, which loads this
//   machine's hwloc topology once. hwloc's PCI plugin (libpciaccess) leaks
//   the PCI name strings it reads, which LeakSanitizer would report as a
//   finding in every target, and loads for seconds under ASan; the fuzzed
//   code does not depend on PCI devices, so PCI discovery is off.
inline void init_process() {
  ::setenv("HWLOC_COMPONENTS", "-pci", 0);
  log::get().set_level(spdlog::level::off);
}

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::size_t left() const noexcept { return size_ - at_; }
  bool empty() const noexcept { return at_ == size_; }

  std::uint8_t u8() noexcept { return at_ < size_ ? data_[at_++] : 0; }
  std::uint16_t u16() noexcept { return static_cast<std::uint16_t>(u8() | u8() << 8); }
  std::uint32_t u32() noexcept { return static_cast<std::uint32_t>(u16()) | static_cast<std::uint32_t>(u16()) << 16; }
  // Up to `count` bytes (fewer at the end of the input).
  std::string_view bytes(std::size_t count) noexcept {
    count = std::min(count, left());
    std::string_view part(reinterpret_cast<const char*>(data_ + at_), count);
    at_ += count;
    return part;
  }
  std::string_view rest() noexcept { return bytes(left()); }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

struct SocketPair {
  UniqueFd near;  // handed to the code under test
  UniqueFd far;   // the fuzzer's side: what it writes, the code under test reads

  static SocketPair make() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0) {
      std::perror("socketpair");
      std::abort();
    }
    return SocketPair{UniqueFd(fds[0]), UniqueFd(fds[1])};
  }

  // Writes what the socket buffer takes; returns the bytes written.
  std::size_t feed(std::string_view bytes) const {
    ssize_t n = bytes.empty() ? 0 : ::send(far.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    return n > 0 ? static_cast<std::size_t>(n) : 0;
  }
  // Reads and returns what the code under test sent (at most `max` bytes).
  std::string drain(std::size_t max = std::size_t{1} << 20) const {
    std::string out;
    char buffer[16384];
    while (out.size() < max) {
      ssize_t n = ::recv(far.get(), buffer, sizeof(buffer), 0);
      if (n <= 0) break;
      out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
  }
  // The fuzzer's side hangs up: the code under test sees end of stream.
  void hang_up() { far.reset(); }
};

}  // namespace rcoll::fuzz
