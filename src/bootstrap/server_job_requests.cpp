// ServerJob, part two: the requests of a formed job (barrier, put, get)
// and the deadlines of the waits they create.
#include <algorithm>

#include "bootstrap/server_job.hpp"
#include "common/log.hpp"
#include "store/keys.hpp"

namespace rcoll::bootstrap {

using wire::ErrorCode;
using wire::MessageType;

void ServerJob::handle_barrier(ServerSession& session, const wire::BarrierMessage& barrier, Clock::time_point now) {
  auto rank = static_cast<std::size_t>(session.rank());
  if (barrier.generation != barriers_entered_[rank])
    return refuse(session, ErrorCode::unexpected_message,
                  "rank " + std::to_string(rank) + " entered barrier " + std::to_string(barrier.generation) +
                      ", expected barrier " + std::to_string(barriers_entered_[rank]));
  barriers_entered_[rank] = barrier.generation + 1;
  std::vector<int> lost;
  for (int other = 0; other < size_; ++other) {
    auto at = static_cast<std::size_t>(other);
    if (departed_[at] && barriers_entered_[at] <= barrier.generation) lost.push_back(other);
  }
  if (!lost.empty())
    return answer_error(session, ErrorCode::rank_lost, barrier.request_id, lost,
                        "barrier " + std::to_string(barrier.generation) + " cannot complete: rank(s) " +
                            wire::format_ranks(lost) + " disconnected");
  add_wait(session, Wait{Wait::Kind::barrier, &session, barrier.request_id, barrier.generation, {},
                         now + std::chrono::milliseconds(barrier.timeout_ms)});
  complete_barriers();
}

void ServerJob::complete_barriers() {
  std::uint64_t everyone = *std::min_element(barriers_entered_.begin(), barriers_entered_.end());
  std::erase_if(waits_, [&](const Wait& w) {
    if (w.kind != Wait::Kind::barrier || w.generation >= everyone) return false;
    w.session->send(wire::encode(MessageType::barrier_done, wire::DoneMessage{w.request_id}));
    return true;
  });
}

std::vector<int> ServerJob::ranks_behind(std::uint64_t generation) const {
  std::vector<int> behind;
  for (int rank = 0; rank < size_; ++rank)
    if (barriers_entered_[static_cast<std::size_t>(rank)] <= generation) behind.push_back(rank);
  return behind;
}

void ServerJob::handle_put(ServerSession& session, const wire::PutMessage& put) {
  if (wire::is_reserved_key(put.key))
    return answer_error(session, ErrorCode::key_conflict, put.request_id, {},
                        "key '" + put.key + "' is reserved: the service writes " +
                            std::string(store::keys::departed_prefix) + "<rank> when a rank leaves the job");
  auto done = wire::encode(MessageType::put_done, wire::DoneMessage{put.request_id});
  if (auto it = store_.find(put.key); it != store_.end()) {
    if (it->second == put.value) return session.send(std::move(done));
    return answer_error(session, ErrorCode::key_conflict, put.request_id, {},
                        "key '" + put.key + "' already holds a different value (keys are write-once)");
  }
  if (store_bytes_ + put.key.size() + put.value.size() > max_store_bytes)
    return answer_error(session, ErrorCode::resource_limit, put.request_id, {},
                        "the key-value store is full (" + std::to_string(max_store_bytes >> 20) + " MiB)");
  store(put.key, put.value);
  session.send(std::move(done));
}

void ServerJob::store(const std::string& key, const std::string& value) {
  store_bytes_ += key.size() + value.size();
  store_.emplace(key, value);
  std::erase_if(waits_, [&](const Wait& w) {
    if (w.kind != Wait::Kind::get || w.key != key) return false;
    w.session->send(wire::encode(wire::ValueMessage{w.request_id, value}));
    return true;
  });
}

void ServerJob::handle_get(ServerSession& session, const wire::GetMessage& get, Clock::time_point now) {
  if (auto it = store_.find(get.key); it != store_.end())
    return session.send(wire::encode(wire::ValueMessage{get.request_id, it->second}));
  if (get.timeout_ms == 0)  // a poll (try_get): "not there" now, no wait
    return answer_error(session, ErrorCode::wait_timeout, get.request_id, {}, "key '" + get.key + "' does not exist");
  add_wait(session, Wait{Wait::Kind::get, &session, get.request_id, 0, get.key,
                         now + std::chrono::milliseconds(get.timeout_ms)});
}

void ServerJob::expire(Clock::time_point now) {
  if (state_ == State::forming && now >= join_deadline_) {
    auto missing = missing_ranks();
    return fail(ErrorCode::join_timeout, missing,
                "join timeout of the bootstrap server passed; ranks never joined: " + wire::format_ranks(missing));
  }
  std::vector<Wait> due;
  std::erase_if(waits_, [&](Wait& w) {
    if (w.deadline > now) return false;
    due.push_back(std::move(w));
    return true;
  });
  for (const auto& wait : due) {
    if (wait.kind == Wait::Kind::join) {
      // That rank gives up now, so the job can no longer form: tell everyone.
      auto missing = missing_ranks();
      return fail(ErrorCode::join_timeout, missing,
                  "rank " + std::to_string(wait.session->rank()) +
                      " stopped waiting for the job to form; ranks never joined: " + wire::format_ranks(missing));
    }
    if (wait.kind == Wait::Kind::barrier) {
      auto behind = ranks_behind(wait.generation);
      answer_error(*wait.session, ErrorCode::wait_timeout, wait.request_id, behind,
                   "barrier " + std::to_string(wait.generation) + " timed out waiting for ranks " +
                       wire::format_ranks(behind));
    } else {
      answer_error(*wait.session, ErrorCode::wait_timeout, wait.request_id, {},
                   "key '" + wait.key + "' was not published before the deadline");
    }
  }
}

std::optional<ServerJob::Clock::time_point> ServerJob::next_deadline() const {
  std::optional<Clock::time_point> next;
  if (state_ == State::forming) next = join_deadline_;
  for (const auto& wait : waits_) next = next ? std::min(*next, wait.deadline) : wait.deadline;
  return next;
}

}  // namespace rcoll::bootstrap
