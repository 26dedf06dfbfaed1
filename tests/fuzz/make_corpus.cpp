// Writes the seed corpus of every fuzz target with the library's own
// encoders, so the seeds are valid protocol the fuzzers mutate from:
//   make_corpus DIR    -> DIR/<target>/<seed name>
// The seeds in tests/fuzz/corpus/ were made with it; rerun it after a wire
// format changes (scripts/fuzz.sh --regenerate-corpus).
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "bootstrap/messages.hpp"
#include "bootstrap/proofs.hpp"
#include "transport/rdma/wire.hpp"
#include "transport/tcp/wire.hpp"

namespace fs = std::filesystem;
namespace wire = rcoll::bootstrap::wire;
namespace tcp = rcoll::transport::tcp;
namespace rdma = rcoll::transport::rdma;

namespace {

fs::path root;

void seed(const std::string& target, const std::string& name, const std::string& bytes) {
  fs::create_directories(root / target);
  std::ofstream(root / target / name, std::ios::binary) << bytes;
}

template <typename T>
std::string raw(const T& value) {
  return std::string(reinterpret_cast<const char*>(&value), sizeof(value));
}
std::string u8(unsigned value) { return std::string(1, static_cast<char>(value)); }
std::string u16(unsigned value) { return u8(value & 0xff) + u8(value >> 8 & 0xff); }
std::string payload_of(const std::string& frame) { return frame.substr(wire::header_size); }

const std::string token = "fuzz-token";

// A JOIN proving `job_token` against bootstrap_server_fuzz's fixed
// challenge (all zero), so the server seeds get past authentication.
std::string join(std::uint32_t rank, std::uint32_t size, const std::string& job_token = token) {
  wire::JoinMessage message{{}, {}, size, rank, 5000, "1234"};
  message.nonce[0] = static_cast<std::uint8_t>(rank);
  message.proof = rcoll::bootstrap::proofs::client_proof(job_token, rcoll::auth::Nonce{}, message);
  return wire::encode(message);
}

void bootstrap_seeds() {
  std::string members = wire::encode(wire::MembersMessage{{{"127.0.0.1", "4000"}, {"10.0.0.2", "10.0.0.2:4001"}}});
  std::string error = wire::encode(wire::ErrorMessage{wire::ErrorCode::join_timeout, 0, {1, 3}, "ranks never joined"});
  std::string barrier = wire::encode(wire::BarrierMessage{7, 0, 1000});
  std::string done = wire::encode(wire::MessageType::barrier_done, wire::DoneMessage{7});
  std::string put = wire::encode(wire::PutMessage{8, "rdma/0/1", "value"});
  std::string get = wire::encode(wire::GetMessage{9, 1000, "rdma/1/0"});
  std::string value = wire::encode(wire::ValueMessage{9, "value"});
  std::string challenge = wire::encode(wire::ChallengeMessage{});
  std::string accepted = wire::encode(wire::AcceptedMessage{});

  seed("bootstrap_frame_fuzz", "requests", join(0, 2) + barrier + put + get);
  seed("bootstrap_frame_fuzz", "answers", challenge + accepted + members + error + done + value);
  seed("bootstrap_frame_fuzz", "wrong_version", wire::encode_frame(wire::MessageType::join, "x", 99));
  seed("bootstrap_frame_fuzz", "truncated", join(1, 2).substr(0, 20));

  const std::string frames[] = {join(0, 2), members, error, barrier, done, put, get, value, challenge, accepted};
  const wire::MessageType types[] = {wire::MessageType::join,      wire::MessageType::members,
                                     wire::MessageType::error,     wire::MessageType::barrier,
                                     wire::MessageType::barrier_done, wire::MessageType::put,
                                     wire::MessageType::get,       wire::MessageType::value,
                                     wire::MessageType::challenge, wire::MessageType::accepted};
  for (std::size_t i = 0; i < std::size(frames); ++i)
    seed("bootstrap_messages_fuzz", std::string(wire::to_string(types[i])),
         u8(static_cast<unsigned>(types[i]) - 1) + payload_of(frames[i]));

  // bootstrap_server_fuzz: size byte, then (client << 4 | op) [u16 length, bytes].
  auto write = [](unsigned client, const std::string& bytes) { return u8(client << 4 | 2) + u16(bytes.size()) + bytes; };
  auto advance = [](unsigned ms) { return u8(1) + u16(ms); };
  std::string job = u8(1) + write(0, join(0, 2)) + write(1, join(1, 2));
  seed("bootstrap_server_fuzz", "formed_job", job);
  seed("bootstrap_server_fuzz", "barrier_put_get",
       job + write(0, barrier) + write(1, wire::encode(wire::BarrierMessage{3, 0, 1000})) + write(0, put) +
           write(1, wire::encode(wire::GetMessage{4, 1000, "rdma/0/1"})) + write(1, get) + advance(2000) + u8(0 << 4));
  seed("bootstrap_server_fuzz", "refusals",
       u8(2) + write(0, join(0, 3, "wrong")) + write(1, join(5, 3)) + write(2, join(1, 3)) + write(3, join(1, 3)) +
           write(4, "GET / HTTP/1.0\r\n\r\n") + advance(3000));
  seed("bootstrap_server_fuzz", "split_frame", u8(0) + write(0, join(0, 1).substr(0, 7)) + advance(10) +
                                                   write(0, join(0, 1).substr(7)) + u8(0));
}

std::string tcp_frame(tcp::FrameType type, std::uint64_t tag, std::uint64_t length, std::uint64_t id,
                      std::uint8_t flags = 0) {
  tcp::FrameHeader header;
  header.type = type;
  header.tag = tag;
  header.length = length;
  header.id = id;
  header.flags = flags;
  return raw(header);
}

void tcp_seeds() {
  // tcp_hello_fuzz: world, self, cut, flags (1: the harness signs with the
  // token over its challenge, 2: with another token), then the Hello.
  tcp::Hello hello;
  hello.rank = 1;
  hello.size = 4;
  seed("tcp_hello_fuzz", "valid", u8(3) + u8(0) + u8(0) + u8(1) + raw(hello) + "next");
  seed("tcp_hello_fuzz", "split", u8(3) + u8(2) + u8(5) + u8(1) + raw(hello));
  seed("tcp_hello_fuzz", "wrong_token", u8(3) + u8(1) + u8(0) + u8(2) + raw(hello));
  seed("tcp_hello_fuzz", "unsigned", u8(3) + u8(1) + u8(0) + u8(0) + raw(hello));
  hello.rank = 0;
  seed("tcp_hello_fuzz", "own_rank", u8(3) + u8(0) + u8(0) + u8(1) + raw(hello) + std::string(48, 'r'));

  std::string eager = tcp_frame(tcp::FrameType::eager, 0, 5, 0) + "hello";
  std::string odd = tcp_frame(tcp::FrameType::eager, 1, 3, 0) + "abc";
  std::string rdv = tcp_frame(tcp::FrameType::rts, 2, 600, 7) + tcp_frame(tcp::FrameType::cts, 2, 600, 7) +
                    tcp_frame(tcp::FrameType::data, 2, 600, 7) + std::string(600, 'd');
  seed("tcp_frames_fuzz", "eager", u8(0) + eager + odd);
  seed("tcp_frames_fuzz", "rendezvous_split", u8(9) + rdv + tcp_frame(tcp::FrameType::data, 3, 0, 8, tcp::flag_withdrawn));

  // tcp_peer_fuzz: op byte (op | tag << 3), u16 argument, stream writes.
  auto recv = [](unsigned tag, unsigned capacity) { return u8(0 | tag << 3) + u16(capacity); };
  auto send = [](unsigned tag, unsigned bytes) { return u8(1 | tag << 3) + u16(bytes); };
  auto write = [](const std::string& bytes) { return u8(4) + u16(bytes.size()) + bytes; };
  seed("tcp_peer_fuzz", "eager_expected", recv(0, 100) + write(eager));
  seed("tcp_peer_fuzz", "eager_unexpected_truncated", write(eager + odd) + recv(1, 2) + recv(0, 5));
  seed("tcp_peer_fuzz", "rendezvous_in",
       recv(2, 1000) + write(tcp_frame(tcp::FrameType::rts, 2, 600, 7)) +
           write(tcp_frame(tcp::FrameType::data, 2, 600, 7) + std::string(600, 'd')));
  // Found by this target: a DATA of the wrong length left its receive pending after the peer failed.
  seed("tcp_peer_fuzz", "rendezvous_wrong_length",
       recv(2, 1000) + write(tcp_frame(tcp::FrameType::rts, 2, 600, 7)) +
           write(tcp_frame(tcp::FrameType::data, 2, 599, 7) + std::string(599, 'd')));
  seed("tcp_peer_fuzz", "rendezvous_out", send(1, 500) + write(tcp_frame(tcp::FrameType::cts, 1, 500, 1)));
  // Found by this target: a second RTS under the id of a message still in
  // progress orphaned the receive matched to the first (now a protocol error).
  seed("tcp_peer_fuzz", "rts_id_reused",
       recv(2, 1000) + recv(2, 1000) + write(tcp_frame(tcp::FrameType::rts, 2, 600, 7)) +
           write(tcp_frame(tcp::FrameType::rts, 2, 600, 7)));
  seed("tcp_peer_fuzz", "cancel_then_discard",
       send(1, 700) + u8(2) + write(tcp_frame(tcp::FrameType::cts, 1, 700, 1, tcp::flag_discard)) + u8(3));
}

void endpoint_seeds() {
  seed("endpoint_blob_fuzz", "port_only", "127.0.0.1\n40000");
  seed("endpoint_blob_fuzz", "address_port", "10.0.0.1\n192.168.1.20:5000");
  seed("endpoint_blob_fuzz", "bad_port", "10.0.0.1\n10.0.0.2:70000");
}

void rdma_seeds() {
  rdma::ConnInfo info;
  info.rank = 1;
  info.peer = 0;
  info.qpn = 0x1234;
  info.ring_slots = 32;
  info.slot_bytes = sizeof(rdma::MsgHeader) + 8192;
  info.token_hash = rdma::token_hash(token);
  seed("rdma_wire_fuzz", "conn_info_hex", u8(0) + rdma::to_hex(info));
  seed("rdma_wire_fuzz", "conn_info_raw", u8(1) + raw(info));
  rdma::CmPrivate cm;
  cm.rank = 1;
  cm.ring_slots = 32;
  cm.slot_bytes = info.slot_bytes;
  seed("rdma_wire_fuzz", "cm_private", u8(2) + raw(cm) + std::string(24, '\0'));  // IB pads to 56 bytes
  rdma::MsgHeader eager{.kind = rdma::MsgKind::eager, .credits = 3, .tag = 5, .length = 4};
  seed("rdma_wire_fuzz", "eager", u8(3) + raw(eager) + "data");
  rdma::MsgHeader cts{.kind = rdma::MsgKind::cts, .length = 1 << 20, .addr = 0x7f0000001000, .rkey = 0x99,
                      .send_id = 1, .recv_id = 2};
  seed("rdma_wire_fuzz", "cts", u8(3) + raw(cts));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_corpus DIR\n";
    return 2;
  }
  root = argv[1];
  bootstrap_seeds();
  tcp_seeds();
  endpoint_seeds();
  rdma_seeds();
  return 0;
}
