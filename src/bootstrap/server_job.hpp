// The bootstrap server's view of one job: who joined, the members list,
// barrier generations, the key-value store and the waits the server owes
// an answer to. No I/O of its own: it reads frames handed to it and queues
// answers on the sessions (BootstrapServer moves the bytes).
//
// Life: forming -> formed -> finished (every rank disconnected), or
// forming -> failed (join window ended with ranks missing, a joined rank
// disconnected, or a rank's own join deadline passed), or formed -> failed
// never happens: after formation a lost rank fails only the barriers that
// needed it, and the server records it under the reserved key
// store::keys::departed(rank) for ranks still waiting on it.
//
// Sessions are referenced by pointer; the server calls on_disconnect()
// before it destroys a session.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bootstrap/messages.hpp"
#include "bootstrap/server_session.hpp"

namespace rcoll::bootstrap {

class ServerJob {
 public:
  using Clock = std::chrono::steady_clock;
  enum class State { forming, formed, finished, failed };

  // Answers a client may be owed at once; the real client has one at a time.
  static constexpr std::size_t max_waits_per_session = 8;
  // Bytes of keys and values the store holds, all ranks together.
  static constexpr std::size_t max_store_bytes = std::size_t{64} << 20;

  ServerJob(int size, std::string token, Clock::time_point join_deadline);

  // Handles one complete frame from `session`; refuses and closes it on any
  // protocol violation. A session's first frame must be a JOIN with a
  // right proof of the token (proofs.hpp); one that is not gets no log
  // line, only a drop reason (common/drop_summary.hpp), and at most "authentication failed".
  void on_frame(ServerSession& session, const wire::Frame& frame, Clock::time_point now);
  // Answers a session whose header could not be decoded, then closes it.
  // A joined session's refusal is logged; an unauthenticated one's is not
  // (its `text` must not reveal the job: no ranks, no size).
  void refuse(ServerSession& session, wire::ErrorCode code, const std::string& text);
  // `session` is going away; `why` is logged.
  void on_disconnect(ServerSession& session, const std::string& why);
  // Answers the waits (and the join window) whose deadline passed.
  void expire(Clock::time_point now);
  // The earliest deadline expire() must see, if any.
  std::optional<Clock::time_point> next_deadline() const;

  State state() const noexcept { return state_; }
  bool over() const noexcept { return state_ == State::finished || state_ == State::failed; }
  int joined() const noexcept { return joined_; }
  // Failed jobs: the ranks that never joined (join timeout) or were lost.
  const std::vector<int>& failed_ranks() const noexcept { return failed_ranks_; }
  wire::ErrorCode failure_code() const noexcept { return failure_code_; }
  const std::string& failure_text() const noexcept { return failure_text_; }

 private:
  struct Wait {
    enum class Kind { join, barrier, get };
    Kind kind;
    ServerSession* session;
    std::uint64_t request_id;
    std::uint64_t generation;  // barrier
    std::string key;           // get
    Clock::time_point deadline;
  };

  void on_first_frame(ServerSession& session, const wire::Frame& frame, Clock::time_point now);
  // Logs the refusal of a peer that proved the token, answers, closes.
  void refuse_proven(ServerSession& session, wire::ErrorCode code, const std::string& text);
  void refuse_unauthenticated(ServerSession& session, wire::ErrorCode code, const std::string& text,
                              const char* reason);
  // Closes an unauthenticated session without a word.
  void drop(ServerSession& session, const char* reason);
  void handle_join(ServerSession& session, const wire::JoinMessage& join, Clock::time_point now);
  bool join_refused(ServerSession& session, const wire::JoinMessage& join);
  void form();
  void handle_barrier(ServerSession& session, const wire::BarrierMessage& barrier, Clock::time_point now);
  void complete_barriers();
  void handle_put(ServerSession& session, const wire::PutMessage& put);
  // Adds a new key (the caller checked it is new and fits) and answers
  // the GETs waiting for it.
  void store(const std::string& key, const std::string& value);
  void handle_get(ServerSession& session, const wire::GetMessage& get, Clock::time_point now);
  void add_wait(ServerSession& session, Wait wait);
  void answer_error(ServerSession& session, wire::ErrorCode code, std::uint64_t request_id,
                    std::vector<int> ranks, const std::string& text);
  void fail(wire::ErrorCode code, std::vector<int> ranks, const std::string& text);
  // Records the departure (store::keys::departed) and fails the barriers
  // that needed the rank.
  void rank_departed(int rank, const std::string& why);
  std::vector<int> missing_ranks() const;
  std::vector<int> ranks_behind(std::uint64_t generation) const;

  const int size_;
  const std::string token_;
  const Clock::time_point join_deadline_;
  State state_ = State::forming;
  int joined_ = 0;
  std::vector<ServerSession*> by_rank_;       // null: not joined or gone
  std::vector<std::string> blobs_;            // forming jobs: each joined rank's blob
  std::vector<bool> departed_;                // formed jobs: rank disconnected
  std::vector<std::uint64_t> barriers_entered_;
  std::map<std::string, std::string> store_;
  std::size_t store_bytes_ = 0;
  std::vector<Wait> waits_;
  std::vector<int> failed_ranks_;
  wire::ErrorCode failure_code_{};
  std::string failure_text_;
};

std::string_view to_string(ServerJob::State state) noexcept;

}  // namespace rcoll::bootstrap
