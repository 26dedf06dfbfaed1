#include "bootstrap/client_handshake.hpp"

#include <algorithm>
#include <thread>

#include "bootstrap/messages.hpp"
#include "bootstrap/proofs.hpp"
#include "common/log.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::bootstrap {
namespace {

using wire::ErrorCode;
using wire::MessageType;

constexpr std::chrono::milliseconds first_backoff{20};
constexpr std::chrono::milliseconds max_backoff{1000};

std::string type_name(std::uint16_t type) {
  auto name = wire::to_string(static_cast<MessageType>(type));
  return name == "UNKNOWN" ? "message type " + std::to_string(type) : std::string(name);
}

// An ERROR before the server proved the token: it may come from anyone on
// that port, so it only ends this join; it is not trusted for more.
[[noreturn]] void refused_before_proof(const wire::ErrorMessage& error, const ClientChannel& channel) {
  std::string prefix = "rank " + std::to_string(channel.rank()) + ": bootstrap join: the service at " +
                       channel.server();
  if (error.code == ErrorCode::wrong_token)
    throw InvalidArgument(prefix + " refused this rank's proof: wrong job token (RCOLL_JOB_TOKEN differs from "
                                   "the service's)");
  if (error.code == ErrorCode::server_shutdown)
    throw IoError(channel.rank(), -1, "bootstrap join", "the service at " + channel.server() + ": " + error.text);
  throw InvalidArgument(prefix + " refused the join: " + std::string(wire::to_string(error.code)) + ": " + error.text);
}

[[noreturn]] void unproven(const ClientChannel& channel, const std::string& what) {
  throw IoError(channel.rank(), -1, "bootstrap join",
                "the service at " + channel.server() + " could not prove it knows the job token (" + what +
                    "): another process may be listening on that port");
}

// The next frame, an ERROR turned into the refusal it carries.
wire::Frame next_before_proof(ClientChannel& channel, Deadline deadline) {
  wire::Frame frame = channel.receive(deadline, "join");
  if (frame.type == static_cast<std::uint16_t>(MessageType::error))
    refused_before_proof(wire::decode_error(frame.payload), channel);
  return frame;
}

// One attempt on a fresh connection.
void handshake(ClientChannel& channel, const JoinRequest& request, Deadline deadline) {
  try {
    wire::Frame frame = next_before_proof(channel, deadline);
    if (frame.type != static_cast<std::uint16_t>(MessageType::challenge))
      unproven(channel, "its first frame was " + type_name(frame.type) + ", not CHALLENGE");
    auto challenge = wire::decode_challenge(frame.payload);
    wire::JoinMessage join{auth::fresh_nonce(), {}, static_cast<std::uint32_t>(request.size),
                           static_cast<std::uint32_t>(request.rank), server_timeout_ms(deadline), request.blob};
    join.proof = proofs::client_proof(request.job_token, challenge.nonce, join);
    channel.send(wire::encode(join), deadline, "join");
    frame = next_before_proof(channel, deadline);
    if (frame.type != static_cast<std::uint16_t>(MessageType::accepted))
      unproven(channel, "it answered the JOIN with " + type_name(frame.type) + ", not ACCEPTED");
    if (!proofs::server_proof_ok(request.job_token, challenge.nonce, join, wire::decode_accepted(frame.payload).proof))
      unproven(channel, "its proof was wrong");
  } catch (const wire::ProtocolError& error) {
    throw IoError(channel.rank(), -1, "bootstrap join",
                  "bad answer from the service at " + channel.server() + ": " + error.what());
  }
}

}  // namespace

std::uint32_t server_timeout_ms(Deadline deadline) {
  auto left = deadline.remaining();
  auto margin = std::min(left / 4, std::chrono::milliseconds(250));
  auto ms = (left - margin).count();
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(ms, 0, UINT32_MAX));
}

ClientChannel authenticated_join(const JoinRequest& request, const sockaddr_in& server, Deadline deadline) {
  auto backoff = first_backoff;
  for (int attempt = 1;; ++attempt) {
    auto channel = ClientChannel::connect(server, request.rank, deadline);
    try {
      handshake(channel, request, deadline);
      return channel;
    } catch (const IoError& error) {
      if (!channel.broken()) throw;
      if (deadline.remaining() <= backoff)
        throw IoError(request.rank, -1, error.step(), error.cause() + " (" + std::to_string(attempt) +
                                                          " attempts until the deadline)");
      log::debug("bootstrap: rank {}: {}; reconnecting in {} ms (attempt {})", request.rank, error.cause(),
                 backoff.count(), attempt + 1);
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, max_backoff);
  }
}

}  // namespace rcoll::bootstrap
