// Fuzz target: the endpoint blobs every rank publishes through the
// bootstrap service and every other rank parses:
//   TCP:     "<port>" or "<a.b.c.d>:<port>" (transport/tcp/endpoint.hpp)
//   rdma_cm: the "<a.b.c.d>" part becomes a sockaddr (transport/rdma/cm.hpp)
// Input: the address the bootstrap service saw, a newline, the blob.
// Invariants: a blob is refused with InvalidArgument, nothing else; an
// accepted one has a port in 1-65535 and the host it names (or the seen
// address when it names none); writing the target back as a blob and
// parsing that gives the same target; an accepted IPv4 text prints and
// parses back to the same address.
#include <arpa/inet.h>

#include <string>

#include "fuzz_support.hpp"
#include "rcoll/errors.hpp"
#include "transport/rdma/cm.hpp"
#include "transport/tcp/endpoint.hpp"

namespace tcp = rcoll::transport::tcp;

namespace {

void tcp_blob(const rcoll::PeerEndpoint& endpoint) {
  tcp::ConnectTarget target;
  try {
    target = tcp::connect_target(3, endpoint);
  } catch (const rcoll::InvalidArgument& error) {
    FUZZ_CHECK(std::string(error.what()).find("rank 3") != std::string::npos);
    return;
  }
  FUZZ_CHECK(target.port >= 1);
  auto colon = endpoint.blob.rfind(':');
  FUZZ_CHECK(target.host == (colon == std::string::npos ? endpoint.address : endpoint.blob.substr(0, colon)));
  std::string again = (colon == std::string::npos ? std::string() : target.host + ":") + std::to_string(target.port);
  tcp::ConnectTarget reparsed = tcp::connect_target(3, {endpoint.address, again});
  FUZZ_CHECK(reparsed.host == target.host && reparsed.port == target.port);
}

void cm_address(const std::string& text) {
  sockaddr_in address;
  try {
    address = rcoll::transport::rdma::ipv4_sockaddr(text, 4791);
  } catch (const rcoll::InvalidArgument&) {
    return;
  }
  FUZZ_CHECK(address.sin_family == AF_INET && ntohs(address.sin_port) == 4791);
  char printed[INET_ADDRSTRLEN] = {};
  FUZZ_CHECK(::inet_ntop(AF_INET, &address.sin_addr, printed, sizeof(printed)) != nullptr);
  sockaddr_in again = rcoll::transport::rdma::ipv4_sockaddr(printed, 4791);
  FUZZ_CHECK(again.sin_addr.s_addr == address.sin_addr.s_addr);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rcoll::fuzz::init_process();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto newline = text.find('\n');
  rcoll::PeerEndpoint endpoint;
  endpoint.address = newline == std::string::npos ? std::string("127.0.0.1") : text.substr(0, newline);
  endpoint.blob = newline == std::string::npos ? text : text.substr(newline + 1);
  tcp_blob(endpoint);
  auto colon = endpoint.blob.rfind(':');
  cm_address(colon == std::string::npos ? endpoint.blob : endpoint.blob.substr(0, colon));
  return 0;
}
