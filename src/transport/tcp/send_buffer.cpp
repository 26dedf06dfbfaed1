#include "transport/tcp/send_buffer.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <fstream>


namespace rcoll::transport::tcp {
namespace {

constexpr const char* wmem_max_path = "/proc/sys/net/core/wmem_max";

std::optional<std::size_t> read_wmem_max() {
  std::ifstream in(wmem_max_path);
  std::size_t value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

}  // namespace

SendBuffer SendBuffer::choose(std::optional<std::size_t> requested, std::optional<std::size_t> wmem_max) {
  const std::size_t bytes = requested.value_or(default_bytes);
  const std::string asked = std::to_string(bytes) + " bytes" + (requested ? " (RCOLL_TCP_SNDBUF)" : "");
  if (bytes == 0) return {0, 0, "kernel autotuning (RCOLL_TCP_SNDBUF=0)"};
  // The kernel doubles SO_SNDBUF's argument after capping it at wmem_max.
  const std::size_t argument = (bytes + 1) / 2;
  if (!wmem_max) return {0, 0, "kernel autotuning: cannot read " + std::string(wmem_max_path)};
  if (argument > *wmem_max)
    return {0, 0,
            "kernel autotuning: net.core.wmem_max " + std::to_string(*wmem_max) + " caps SO_SNDBUF below the " +
                asked + " asked"};
  const std::size_t eager_bytes = std::max(bytes, std::min(default_eager_bytes, 2 * *wmem_max));
  return {bytes, eager_bytes, asked + " for large payloads, " + std::to_string(eager_bytes) + " for eager runs"};
}

SendBuffer SendBuffer::for_this_host(std::optional<std::size_t> requested) {
  return choose(requested, read_wmem_max());
}

std::size_t SendBuffer::size_for(const FrameHeader& next) const noexcept {
  if (next.length <= free_eager_limit) return 0;
  if (next.type == FrameType::data) return bytes;
  if (next.type == FrameType::eager) return eager_bytes;
  return 0;
}

int SendBuffer::apply(int fd, std::size_t size) noexcept {
  if (size == 0) return 0;
  const int argument = static_cast<int>((size + 1) / 2);
  return ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &argument, sizeof argument) == 0 ? 0 : errno;
}

}  // namespace rcoll::transport::tcp
