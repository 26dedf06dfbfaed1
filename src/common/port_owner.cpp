#include "common/port_owner.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace rcoll::net {
namespace {

struct Listener {
  std::string inode;
  std::string uid;
};

constexpr const char* tcp_listen_state = "0A";

// The first LISTEN socket on `port` in one /proc/net/tcp-style table.
std::optional<Listener> find_listener(const char* table, std::uint16_t port) {
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);  // column titles
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    if (!(fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode))
      continue;
    auto colon = local.rfind(':');
    if (colon == std::string::npos || state != tcp_listen_state) continue;
    if (std::stoul(local.substr(colon + 1), nullptr, 16) == port) return Listener{inode, uid};
  }
  return std::nullopt;
}

// "pid N (comm)" of the process holding socket `inode`, if readable.
std::optional<std::string> holder_of(const std::string& inode) {
  namespace fs = std::filesystem;
  const std::string wanted = "socket:[" + inode + "]";
  std::error_code error;
  for (const auto& process : fs::directory_iterator("/proc", error)) {
    const std::string pid = process.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code fd_error;
    for (const auto& fd : fs::directory_iterator(process.path() / "fd", fd_error)) {
      std::error_code link_error;
      if (fs::read_symlink(fd.path(), link_error).string() != wanted) continue;
      std::string comm;
      std::getline(std::ifstream(process.path() / "comm"), comm);
      return "pid " + pid + " (" + comm + ")";
    }
  }
  return std::nullopt;
}

}  // namespace

std::string port_owner(std::uint16_t port) {
  try {
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
      auto listener = find_listener(table, port);
      if (!listener) continue;
      if (auto holder = holder_of(listener->inode)) return *holder;
      return "another process (uid " + listener->uid + ")";
    }
  } catch (const std::exception&) {
    // An unexpected /proc layout: say what is always true.
  }
  return "another process";
}

}  // namespace rcoll::net
