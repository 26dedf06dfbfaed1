#include "support/own_listeners.hpp"

#include <arpa/inet.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace rcoll::test {
namespace {

constexpr const char* tcp_listen_state = "0A";

std::set<std::uint64_t> own_socket_inodes() {
  std::set<std::uint64_t> inodes;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", error)) {
    std::string target = std::filesystem::read_symlink(entry.path(), error).string();
    if (error || target.rfind("socket:[", 0) != 0) continue;
    inodes.insert(std::stoull(target.substr(8)));
  }
  return inodes;
}

// "0100007F:1F90" (little-endian hex address, hex port) as its parts.
Listener parse_local(const std::string& text) {
  Listener listener;
  in_addr address{};
  address.s_addr = static_cast<std::uint32_t>(std::stoul(text.substr(0, 8), nullptr, 16));
  char dotted[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &address, dotted, sizeof(dotted));
  listener.ip = dotted;
  listener.port = static_cast<std::uint16_t>(std::stoul(text.substr(9), nullptr, 16));
  return listener;
}

}  // namespace

std::vector<Listener> own_listeners() {
  const std::set<std::uint64_t> ours = own_socket_inodes();
  std::vector<Listener> found;
  std::ifstream table("/proc/net/tcp");
  std::string line;
  std::getline(table, line);  // header
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout;
    std::uint64_t inode = 0;
    fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
    if (!fields || state != tcp_listen_state || ours.count(inode) == 0) continue;
    Listener listener = parse_local(local);
    listener.inode = inode;
    found.push_back(listener);
  }
  return found;
}

}  // namespace rcoll::test
