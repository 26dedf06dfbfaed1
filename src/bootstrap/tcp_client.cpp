#include "bootstrap/tcp_client.hpp"

#include <algorithm>
#include <optional>
#include <variant>

#include "bootstrap/client_channel.hpp"
#include "bootstrap/client_handshake.hpp"
#include "bootstrap/messages.hpp"
#include "common/log.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::bootstrap {
namespace {

using wire::ErrorCode;
using wire::MessageType;

// Bound on try_get's one round trip to the server.
constexpr std::chrono::seconds try_get_round_trip{30};

[[noreturn]] void throw_server_error(const wire::ErrorMessage& error, const ClientChannel& channel,
                                     const std::string& step) {
  std::string prefix = "rank " + std::to_string(channel.rank()) + ": bootstrap " + step + ": ";
  std::string reason = std::string(wire::to_string(error.code)) + ": " + error.text;
  switch (error.code) {
    case ErrorCode::join_timeout:
    case ErrorCode::wait_timeout:
      throw TimeoutError(prefix + reason, error.ranks);
    case ErrorCode::rank_lost:
      throw IoError(channel.rank(), error.ranks.empty() ? -1 : error.ranks.front(), "bootstrap " + step, reason);
    case ErrorCode::server_shutdown:
      throw IoError(channel.rank(), -1, "bootstrap " + step, "server " + channel.server() + ": " + reason);
    default:
      throw InvalidArgument(prefix + "refused by the server " + channel.server() + ": " + reason);
  }
}

void check_size(const std::string& what, std::size_t size, std::size_t limit, int rank) {
  if (size > limit)
    throw InvalidArgument("rank " + std::to_string(rank) + ": bootstrap " + what + " of " + std::to_string(size) +
                          " bytes exceeds the limit of " + std::to_string(limit));
}

class TcpBootstrap final : public Bootstrap {
 public:
  TcpBootstrap(ClientChannel channel, int size, std::vector<PeerEndpoint> members)
      : channel_(std::move(channel)), size_(size), members_(std::move(members)) {}

  int rank() const override { return channel_.rank(); }
  int size() const override { return size_; }
  const std::vector<PeerEndpoint>& members() const override { return members_; }

  void barrier(Deadline deadline) override {
    std::uint64_t generation = generation_++;
    std::string step = "barrier " + std::to_string(generation);
    std::uint64_t id = next_id_++;
    channel_.send(wire::encode(wire::BarrierMessage{id, generation, server_timeout_ms(deadline)}), deadline, step);
    await(id, MessageType::barrier_done, deadline, step);
  }

  void set(const std::string& key, const std::string& value, Deadline deadline) override {
    check_size("key", key.size(), wire::max_key, rank());
    check_size("value", value.size(), wire::max_value, rank());
    std::string step = "set '" + key + "'";
    std::uint64_t id = next_id_++;
    channel_.send(wire::encode(wire::PutMessage{id, key, value}), deadline, step);
    await(id, MessageType::put_done, deadline, step);
  }

  std::string get(const std::string& key, Deadline deadline) override {
    check_size("key", key.size(), wire::max_key, rank());
    std::string step = "get '" + key + "'";
    std::uint64_t id = next_id_++;
    channel_.send(wire::encode(wire::GetMessage{id, server_timeout_ms(deadline), key}), deadline, step);
    return wire::decode_value(await(id, MessageType::value, deadline, step).payload).value;
  }

  // One round trip: a GET with timeout 0, which the server answers at once
  // (VALUE or wait_timeout). The round trip itself is bounded by
  // try_get_round_trip; a server that does not answer within it is broken
  // (TimeoutError).
  std::optional<std::string> try_get(const std::string& key) override {
    check_size("key", key.size(), wire::max_key, rank());
    std::string step = "try_get '" + key + "'";
    auto deadline = Deadline::after(try_get_round_trip);
    std::uint64_t id = next_id_++;
    channel_.send(wire::encode(wire::GetMessage{id, 0, key}), deadline, step);
    auto answer = next_answer(id, MessageType::value, deadline, step);
    if (auto* error = std::get_if<wire::ErrorMessage>(&answer)) {
      if (error->code == ErrorCode::wait_timeout) return std::nullopt;  // not there (yet)
      throw_server_error(*error, channel_, step);
    }
    return wire::decode_value(std::get<wire::Frame>(answer).payload).value;
  }

 private:
  // Waits for the answer to request `id`: the expected frame, or the
  // server's ERROR about this request or the whole job. Answers to earlier
  // requests that the client gave up on arrive late and are skipped.
  std::variant<wire::Frame, wire::ErrorMessage> next_answer(std::uint64_t id, MessageType expected,
                                                            Deadline deadline, const std::string& step) {
    for (;;) {
      wire::Frame frame = channel_.receive(deadline, step);
      try {
        if (frame.type == static_cast<std::uint16_t>(MessageType::error)) {
          auto error = wire::decode_error(frame.payload);
          if (error.request_id == id || error.request_id == 0) return error;
          continue;
        }
        if (frame.type != static_cast<std::uint16_t>(expected))
          throw wire::ProtocolError(ErrorCode::unexpected_message,
                                    "expected " + std::string(wire::to_string(expected)) + ", got message type " +
                                        std::to_string(frame.type));
        if (wire::Reader(frame.payload).u64("request id") == id) return frame;
      } catch (const wire::ProtocolError& error) {
        throw IoError(rank(), -1, "bootstrap " + step, "bad answer from the server " + channel_.server() + ": " +
                                                           error.what());
      }
    }
  }

  wire::Frame await(std::uint64_t id, MessageType expected, Deadline deadline, const std::string& step) {
    auto answer = next_answer(id, expected, deadline, step);
    if (auto* error = std::get_if<wire::ErrorMessage>(&answer)) throw_server_error(*error, channel_, step);
    return std::get<wire::Frame>(std::move(answer));
  }

  ClientChannel channel_;
  int size_;
  std::vector<PeerEndpoint> members_;
  std::uint64_t next_id_ = 1;  // 0 is reserved for job-level errors
  std::uint64_t generation_ = 0;
};

void validate(const JoinRequest& request) {
  std::string who = "bootstrap join of rank " + std::to_string(request.rank) + ": ";
  if (request.size < 1 || static_cast<std::uint32_t>(request.size) > wire::max_world_size)
    throw InvalidArgument(who + "world size " + std::to_string(request.size) + " out of range");
  if (request.rank < 0 || request.rank >= request.size)
    throw InvalidArgument(who + "rank out of range [0, " + std::to_string(request.size) + ")");
  check_size("job token", request.job_token.size(), wire::max_token, request.rank);  // what the proofs hash
  check_size("endpoint blob", request.blob.size(), wire::max_blob, request.rank);
}

std::vector<PeerEndpoint> await_members(ClientChannel& channel, int size, Deadline deadline) {
  wire::Frame frame = channel.receive(deadline, "join");
  try {
    if (frame.type == static_cast<std::uint16_t>(MessageType::error))
      throw_server_error(wire::decode_error(frame.payload), channel, "join");
    if (frame.type != static_cast<std::uint16_t>(MessageType::members))
      throw wire::ProtocolError(ErrorCode::unexpected_message, "unexpected message type " + std::to_string(frame.type));
    auto members = wire::decode_members(frame.payload).members;
    if (members.size() != static_cast<std::size_t>(size))
      throw wire::ProtocolError(ErrorCode::malformed, "members list has " + std::to_string(members.size()) +
                                                          " entries for a world of " + std::to_string(size));
    return members;
  } catch (const wire::ProtocolError& error) {
    throw IoError(channel.rank(), -1, "bootstrap join", "bad answer from the server " + channel.server() + ": " +
                                                            error.what());
  }
}

}  // namespace

std::unique_ptr<Bootstrap> join_tcp(const JoinRequest& request, Deadline deadline) {
  validate(request);
  auto where = net::parse_host_port(request.address);
  auto server = net::resolve_ipv4(where.host, where.port);
  auto channel = authenticated_join(request, server, deadline);
  auto members = await_members(channel, request.size, deadline);
  log::debug("bootstrap: rank {} joined a job of {} ranks via {}", request.rank, request.size, channel.server());
  return std::make_unique<TcpBootstrap>(std::move(channel), request.size, std::move(members));
}

}  // namespace rcoll::bootstrap
