#include "bootstrap/server_job.hpp"

#include <algorithm>

#include "common/log.hpp"
#include "bootstrap/proofs.hpp"
#include "store/keys.hpp"

namespace rcoll::bootstrap {

using wire::ErrorCode;
using wire::MessageType;

namespace {


std::string type_name(std::uint16_t type) {
  auto name = wire::to_string(static_cast<MessageType>(type));
  return name == "UNKNOWN" ? "message type " + std::to_string(type) : std::string(name);
}

std::chrono::milliseconds ms(std::uint32_t value) { return std::chrono::milliseconds(value); }

}  // namespace

std::string_view to_string(ServerJob::State state) noexcept {
  switch (state) {
    case ServerJob::State::forming: return "forming";
    case ServerJob::State::formed: return "formed";
    case ServerJob::State::finished: return "finished";
    case ServerJob::State::failed: return "failed";
  }
  return "?";
}

ServerJob::ServerJob(int size, std::string token, Clock::time_point join_deadline)
    : size_(size),
      token_(std::move(token)),
      join_deadline_(join_deadline),
      by_rank_(static_cast<std::size_t>(size), nullptr),
      blobs_(static_cast<std::size_t>(size)),
      departed_(static_cast<std::size_t>(size), false),
      barriers_entered_(static_cast<std::size_t>(size), 0) {}

void ServerJob::on_frame(ServerSession& session, const wire::Frame& frame, Clock::time_point now) {
  if (session.rank() < 0) return on_first_frame(session, frame, now);
  try {
    auto type = static_cast<MessageType>(frame.type);
    if (state_ != State::formed)
      return refuse(session, ErrorCode::unexpected_message,
                    type_name(frame.type) + " while the job is " + std::string(to_string(state_)));
    switch (type) {
      case MessageType::barrier: return handle_barrier(session, wire::decode_barrier(frame.payload), now);
      case MessageType::put: return handle_put(session, wire::decode_put(frame.payload));
      case MessageType::get: return handle_get(session, wire::decode_get(frame.payload), now);
      default:
        return refuse(session, ErrorCode::unexpected_message, "unexpected " + type_name(frame.type) + " from a joined rank");
    }
  } catch (const wire::ProtocolError& error) {
    refuse(session, error.code(), type_name(frame.type) + ": " + error.what());
  }
}

void ServerJob::on_first_frame(ServerSession& session, const wire::Frame& frame, Clock::time_point now) {
  wire::JoinMessage join;
  try {
    if (frame.type != static_cast<std::uint16_t>(MessageType::join)) return drop(session, "sent no JOIN");
    join = wire::decode_join(frame.payload);
  } catch (const wire::ProtocolError&) {
    return drop(session, "sent a malformed JOIN");
  }
  if (!proofs::client_proof_ok(token_, session.challenge(), join))
    return refuse_unauthenticated(session, ErrorCode::wrong_token, "authentication failed",
                                  "failed the token proof");
  // From here on the peer has proven the token: it may hear why it is refused.
  session.send(wire::encode(wire::AcceptedMessage{proofs::server_proof(token_, session.challenge(), join)}));
  handle_join(session, join, now);
}

void ServerJob::refuse(ServerSession& session, ErrorCode code, const std::string& text) {
  if (session.rank() < 0) return refuse_unauthenticated(session, code, text, "refused before joining");
  refuse_proven(session, code, text);
}

void ServerJob::refuse_proven(ServerSession& session, ErrorCode code, const std::string& text) {
  std::string who = session.rank() >= 0 ? " (rank " + std::to_string(session.rank()) + ")" : std::string();
  log::warn("bootstrap: refusing {}{}: {}: {}", session.peer(), who, wire::to_string(code), text);
  session.set_drop_reason(nullptr);  // logged here, so not counted among the unauthenticated
  session.send(wire::encode(wire::ErrorMessage{code, 0, {}, text}));
  session.close_after_flush();
}

void ServerJob::refuse_unauthenticated(ServerSession& session, ErrorCode code, const std::string& text,
                                       const char* reason) {
  session.set_drop_reason(reason);
  session.send(wire::encode(wire::ErrorMessage{code, 0, {}, text}));
  session.close_after_flush();
}

void ServerJob::drop(ServerSession& session, const char* reason) {
  session.set_drop_reason(reason);
  session.close_after_flush();
}

void ServerJob::answer_error(ServerSession& session, ErrorCode code, std::uint64_t request_id,
                             std::vector<int> ranks, const std::string& text) {
  log::info("bootstrap: answering rank {} ({}): {}: {}", session.rank(), session.peer(), wire::to_string(code), text);
  session.send(wire::encode(wire::ErrorMessage{code, request_id, std::move(ranks), text}));
}

// Only for a JOIN whose proof was right: the texts name ranks and sizes.
bool ServerJob::join_refused(ServerSession& session, const wire::JoinMessage& join) {
  auto rank_text = "rank " + std::to_string(join.rank);
  if (join.size != static_cast<std::uint32_t>(size_)) {
    refuse_proven(session, ErrorCode::size_mismatch,
                  rank_text + " expects world size " + std::to_string(join.size) + ", the job has size " +
                      std::to_string(size_));
  } else if (join.rank >= static_cast<std::uint32_t>(size_)) {
    refuse_proven(session, ErrorCode::rank_out_of_range,
                  rank_text + " is out of range [0, " + std::to_string(size_) + ")");
  } else if (const ServerSession* holder = by_rank_[join.rank]; holder != nullptr || state_ != State::forming) {
    refuse_proven(session, ErrorCode::duplicate_rank,
                  rank_text + " already joined" + (holder ? " from " + holder->peer() : std::string(" (the job has formed)")));
  } else {
    return false;
  }
  return true;
}

void ServerJob::handle_join(ServerSession& session, const wire::JoinMessage& join, Clock::time_point now) {
  if (join_refused(session, join)) return;
  int rank = static_cast<int>(join.rank);
  session.set_rank(rank);
  by_rank_[join.rank] = &session;
  ++joined_;
  log::info("bootstrap: rank {} joined from {} ({}/{})", rank, session.peer(), joined_, size_);
  add_wait(session, Wait{Wait::Kind::join, &session, 0, 0, {}, now + ms(join.timeout_ms)});
  blobs_[join.rank] = join.blob;
  if (joined_ == size_) form();
}

void ServerJob::form() {
  wire::MembersMessage members;
  members.members.reserve(static_cast<std::size_t>(size_));
  for (int rank = 0; rank < size_; ++rank)
    members.members.push_back({by_rank_[static_cast<std::size_t>(rank)]->peer_ip(), std::move(blobs_[static_cast<std::size_t>(rank)])});
  blobs_ = {};
  std::string frame = wire::encode(members);
  if (frame.size() - wire::header_size > wire::max_answer_payload)
    return fail(ErrorCode::resource_limit, {}, "the members list (" + std::to_string(frame.size()) +
                                                   " bytes) exceeds the answer limit");
  state_ = State::formed;
  waits_.clear();  // only join waits exist before formation
  for (auto* session : by_rank_) session->send(frame);
  log::info("bootstrap: job of {} ranks formed", size_);
}

void ServerJob::add_wait(ServerSession& session, Wait wait) {
  auto owed = std::count_if(waits_.begin(), waits_.end(), [&](const Wait& w) { return w.session == &session; });
  if (static_cast<std::size_t>(owed) >= max_waits_per_session)
    return refuse(session, ErrorCode::resource_limit,
                  "more than " + std::to_string(max_waits_per_session) + " outstanding requests");
  waits_.push_back(std::move(wait));
}

void ServerJob::fail(ErrorCode code, std::vector<int> ranks, const std::string& text) {
  state_ = State::failed;
  failed_ranks_ = ranks;
  failure_code_ = code;
  failure_text_ = text;
  waits_.clear();
  log::error("bootstrap: job failed: {}", text);
  for (auto* session : by_rank_) {
    if (session == nullptr) continue;
    session->send(wire::encode(wire::ErrorMessage{code, 0, ranks, text}));
    session->close_after_flush();
  }
}

void ServerJob::on_disconnect(ServerSession& session, const std::string& why) {
  std::erase_if(waits_, [&](const Wait& w) { return w.session == &session; });
  int rank = session.rank();
  // Connections that never joined are counted by the server (common/drop_summary.hpp), not logged one by one.
  if (rank < 0 || by_rank_[static_cast<std::size_t>(rank)] != &session) return;
  by_rank_[static_cast<std::size_t>(rank)] = nullptr;
  if (state_ == State::forming) {
    fail(ErrorCode::rank_lost, {rank},
         "rank " + std::to_string(rank) + " (" + session.peer() + ") " + why + " before the job formed");
  } else if (state_ == State::formed) {
    log::info("bootstrap: rank {} ({}) {}", rank, session.peer(), why);
    rank_departed(rank, "rank " + std::to_string(rank) + " (" + session.peer() + ") " + why);
  }
}

void ServerJob::rank_departed(int rank, const std::string& why) {
  departed_[static_cast<std::size_t>(rank)] = true;
  // Never refused for size: a few bytes per rank, and ranks waiting on a
  // dead one depend on hearing of it.
  std::string key = store::keys::departed(rank);
  if (!store_.contains(key)) store(key, why.substr(0, wire::max_text));
  std::uint64_t entered = barriers_entered_[static_cast<std::size_t>(rank)];
  std::erase_if(waits_, [&](const Wait& w) {
    if (w.kind != Wait::Kind::barrier || w.generation < entered) return false;
    answer_error(*w.session, ErrorCode::rank_lost, w.request_id, {rank},
                 "barrier " + std::to_string(w.generation) + " cannot complete: rank " + std::to_string(rank) +
                     " disconnected");
    return true;
  });
  if (std::all_of(departed_.begin(), departed_.end(), [](bool gone) { return gone; })) {
    state_ = State::finished;
    log::info("bootstrap: every rank disconnected; job finished");
  }
}

std::vector<int> ServerJob::missing_ranks() const {
  std::vector<int> missing;
  for (int rank = 0; rank < size_; ++rank)
    if (by_rank_[static_cast<std::size_t>(rank)] == nullptr) missing.push_back(rank);
  return missing;
}

}  // namespace rcoll::bootstrap
