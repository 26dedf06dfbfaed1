// Point-to-point errors through the public API, ranks as threads over the
// in-process fabric and TCP: a message that does not fit its receive fails
// that receive only (MessageError, docs/ERRORS.md) and the communicator
// goes on; errors name the user's tag or the collective's call, never the
// internal tag encoding.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "comm/tags.hpp"
#include "rcoll/rcoll.hpp"
#include "support/comm_ranks.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void run_comms(const std::string& backend, int size, const std::function<void(Comm&)>& body) {
  Options base;
  base.timeout = 30s;
  test::run_comm_ranks(backend, size, base, body);
}

class MessageErrors : public ::testing::TestWithParam<std::string> {};

// The communicator is usable after each failed receive: later messages on
// the same tag, other tags, and collectives all work.
void expect_usable(Comm& comm) {
  const int peer = 1 - comm.rank();
  std::vector<std::int32_t> out(1000), in(1000, -1);
  std::iota(out.begin(), out.end(), comm.rank() * 10000);
  if (comm.rank() == 0) {
    comm.send(std::span<const std::int32_t>(out), peer, 5);
  } else {
    EXPECT_EQ(comm.recv(std::span<std::int32_t>(in), peer, 5), 1000u);
    EXPECT_EQ(in[999], 999);
  }
  std::vector<float> sum(300000, 1.0f);  // large enough for the pipelined algorithms
  comm.allreduce(std::span<float>(sum), ReduceOp::sum);
  EXPECT_EQ(sum.front(), 2.0f);
  EXPECT_EQ(sum.back(), 2.0f);
  comm.barrier();
}

TEST_P(MessageErrors, AMessageLongerThanTheBufferFailsThatReceiveOnly) {
  run_comms(GetParam(), 2, [](Comm& comm) {
    std::vector<std::uint8_t> small(100, 7), large(1 << 20, 9);  // eager, and (over TCP) rendezvous
    if (comm.rank() == 0) {
      comm.send(std::span<const std::uint8_t>(small), 1, 5);
      comm.send(std::span<const std::uint8_t>(large), 1, 6);
      expect_usable(comm);
      return;
    }
    for (auto [tag, length] : {std::pair{5, std::size_t{100}}, std::pair{6, std::size_t{1} << 20}}) {
      std::vector<std::uint8_t> buffer(10, 0xee);
      try {
        comm.recv(std::span<std::uint8_t>(buffer), 0, tag);
        ADD_FAILURE() << "a message of " << length << " bytes fitted a buffer of 10";
      } catch (const MessageError& e) {
        const std::string what = e.what();
        EXPECT_EQ(e.rank(), 1);
        EXPECT_EQ(e.peer(), 0);
        EXPECT_EQ(e.bytes(), length);
        EXPECT_EQ(e.capacity(), 10u);
        EXPECT_TRUE(contains(what, "rank 1, peer 0: recv from rank 0 tag " + std::to_string(tag) + ": ")) << what;
        EXPECT_TRUE(contains(what, "message of " + std::to_string(length) + " bytes exceeds receive buffer of 10"))
            << what;
        EXPECT_FALSE(contains(what, std::to_string(comm::user_tag(tag)))) << "internal tag in: " << what;
      }
      EXPECT_EQ(buffer, std::vector<std::uint8_t>(10, 0xee)) << "a truncated message wrote into the buffer";
    }
    expect_usable(comm);
  });
}

// The sender of a refused rendezvous message must not wait for the
// receiver's next call: rank 1 refuses the 1 MiB message, then makes no
// rcoll call for 3 s; rank 0's send has 1.5 s.
TEST_P(MessageErrors, TheSenderOfARefusedMessageDoesNotWaitForTheReceiversNextCall) {
  std::atomic<bool> sent{false};
  run_comms(GetParam(), 2, [&](Comm& comm) {
    std::vector<std::uint8_t> large(1 << 20, 9), small(10);
    if (comm.rank() == 0) {
      comm.send(std::span<const std::uint8_t>(large), 1, 6, {.timeout = 1500ms});
      sent = true;
    } else {
      std::this_thread::sleep_for(200ms);  // the message is announced before the receive is posted
      EXPECT_THROW(comm.recv(std::span<std::uint8_t>(small), 0, 6), MessageError);
      const auto until = std::chrono::steady_clock::now() + 3s;
      while (!sent && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
    }
    comm.barrier();
  });
  EXPECT_TRUE(sent);
}

TEST_P(MessageErrors, APartialElementFailsThatReceiveOnly) {
  run_comms(GetParam(), 2, [](Comm& comm) {
    if (comm.rank() == 0) {
      const std::vector<std::uint8_t> seven(7, 1);
      comm.send(std::span<const std::uint8_t>(seven), 1, 5);
      expect_usable(comm);
      return;
    }
    std::vector<std::int32_t> buffer(4);
    try {
      comm.recv(std::span<std::int32_t>(buffer), 0, 5);
      ADD_FAILURE() << "7 bytes were taken as whole int32 elements";
    } catch (const MessageError& e) {
      EXPECT_EQ(e.bytes(), 7u);
      EXPECT_EQ(e.capacity(), 16u);
      EXPECT_TRUE(contains(e.what(), "rank 1, peer 0: recv from rank 0 tag 5: received 7 bytes, not a whole number "
                                     "of int32 elements"))
          << e.what();
    }
    expect_usable(comm);
  });
}

// Without RCOLL_CHECK, a rank that broadcasts fewer elements than the root
// gets an IoError (the collective is broken, and so is the communicator):
// it names the call and its number, and no tag at all.
TEST_P(MessageErrors, ACollectiveTruncationNamesTheCallNotATag) {
  std::mutex mutex;
  std::string receiver_error;
  run_comms(GetParam(), 2, [&](Comm& comm) {
    comm.barrier();  // call #0: the bcast is #1, whose internal tags are not small numbers
    std::vector<float> data(comm.rank() == 0 ? 1000 : 10, 1.0f);
    try {
      comm.bcast(std::span<float>(data), 0, {.timeout = 5s});
    } catch (const IoError& e) {
      std::lock_guard lock(mutex);
      if (comm.rank() == 1) receiver_error = e.what();
    } catch (const TimeoutError&) {
    }
  });
  EXPECT_TRUE(contains(receiver_error, "rank 1, peer 0: bcast #1 (10 x float32, root 0): bcast ")) << receiver_error;
  EXPECT_TRUE(contains(receiver_error, "exceeds receive buffer of 40 bytes")) << receiver_error;
  EXPECT_FALSE(contains(receiver_error, "tag")) << receiver_error;
}

INSTANTIATE_TEST_SUITE_P(Backends, MessageErrors, ::testing::Values("inproc", "tcp"));

}  // namespace
}  // namespace rcoll
