// What ranks tell each other when they join, and what every rank decides
// from it: the card's encoding, which ranks share a host, and the settings
// that must agree (a rank that differs fails every rank at once, by name,
// instead of hanging them).
#include <gtest/gtest.h>

#include <memory>
#include <chrono>
#include <string>
#include <vector>

#include "comm/host_layout.hpp"
#include "comm/rank_card.hpp"
#include "comm/shared_settings.hpp"
#include "bootstrap/in_memory.hpp"
#include "comm/comm_impl.hpp"
#include "rcoll/errors.hpp"
#include "support/run_ranks.hpp"
#include "transport/inproc/inproc_transport.hpp"

namespace rcoll::comm {
namespace {

using namespace std::chrono_literals;

RankCard card(std::string host, int cpus, std::string settings = "a=1 b=2") {
  return RankCard{std::move(host), cpus, std::move(settings), "endpoint"};
}

TEST(RankCard, RoundTripsWithAnyEndpointBytes) {
  const std::string endpoint("port 41234\nline two\0binary", 27);
  const RankCard sent{"boot/host/ipc:1", 64, "transport=tcp check=0", endpoint};
  const RankCard got = decode_card(encode(sent), 3, 0);
  EXPECT_EQ(got.host, sent.host);
  EXPECT_EQ(got.host_cpus, 64);
  EXPECT_EQ(got.settings, sent.settings);
  EXPECT_EQ(got.endpoint, endpoint);
}

TEST(RankCard, NewlinesInTheTextFieldsCannotShiftTheOthers) {
  const RankCard got = decode_card(encode({"host\nname", 2, "x=1\ny=2", "ep"}), 0, 0);
  EXPECT_EQ(got.host, "host name");
  EXPECT_EQ(got.settings, "x=1 y=2");
  EXPECT_EQ(got.endpoint, "ep");
}

TEST(RankCard, AnUnreadableCardNamesItsRank) {
  for (const std::string bad : {"", "12345", "rcoll-card 2\nh\n1\ns\ne", "rcoll-card 1\nh\n0\ns\ne",
                                "rcoll-card 1\nh\nmany\ns\ne", "rcoll-card 1\nh\n4"}) {
    try {
      decode_card(bad, 5, 1);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const IoError& e) {
      EXPECT_EQ(e.rank(), 1);
      EXPECT_EQ(e.peer(), 5);
      EXPECT_NE(std::string(e.what()).find("rank 5's join card is unreadable"), std::string::npos) << e.what();
    }
  }
}

TEST(HostLayout, LocalRanksCountTheRanksOfTheSameHostInRankOrder) {
  const std::vector<RankCard> cards{card("A", 8), card("B", 8), card("A", 8), card("A", 8), card("B", 8)};
  const HostLayout third = host_layout(cards, 3);
  EXPECT_EQ(third.local_rank, 2);
  EXPECT_EQ(third.local_size, 3);
  EXPECT_EQ(third.hosts, 2);
  EXPECT_EQ(third.shared_cores, 0);  // several hosts
  const HostLayout fifth = host_layout(cards, 4);
  EXPECT_EQ(fifth.local_rank, 1);
  EXPECT_EQ(fifth.local_size, 2);
}

TEST(HostLayout, RanksShareCoresOnlyWhenAllAreOnOneHostWithFewerCpus) {
  EXPECT_EQ(host_layout({card("A", 2), card("A", 2), card("A", 2)}, 0).shared_cores, 2);
  EXPECT_EQ(host_layout({card("A", 2), card("A", 2)}, 1).shared_cores, 0);  // a core each
  EXPECT_EQ(host_layout({card("A", 2), card("A", 2), card("B", 2)}, 0).shared_cores, 0);
  // Every rank reads the same cards, so every rank gets the same answer.
  const std::vector<RankCard> cards{card("A", 2), card("A", 2), card("A", 2), card("A", 2)};
  for (int r = 0; r < 4; ++r) EXPECT_EQ(host_layout(cards, r).shared_cores, 2);
}

TEST(SharedSettings, EqualSettingsPass) {
  EXPECT_NO_THROW(check_same_settings({card("A", 2), card("B", 2), card("A", 2)}, 1));
}

TEST(SharedSettings, ADifferenceNamesTheSettingItsVariableAndTheRanks) {
  const std::vector<RankCard> cards{card("A", 2, "allreduce=auto check=0"), card("A", 2, "allreduce=auto check=0"),
                                    card("A", 2, "allreduce=ring check=0"), card("A", 2, "allreduce=auto")};
  try {
    check_same_settings(cards, 1);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("rank 1: "), std::string::npos) << text;
    EXPECT_NE(text.find("allreduce (RCOLL_ALLREDUCE_ALGO) is 'auto' on ranks 0, 1 and 3, 'ring' on rank 2"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("check (RCOLL_CHECK) is '0' on ranks 0-2"), std::string::npos) << text;
  }
}

// Ranks as threads, one of them told another algorithm: every rank fails
// at creation, at once, naming the setting, instead of hanging in the
// first collective the others run differently.
TEST(SharedSettings, ACommunicatorWithADifferingRankFailsOnEveryRank) {
  constexpr int size = 3;
  auto rendezvous = std::make_shared<bootstrap::InMemoryRendezvous>(size);
  transport::InprocFabric fabric(size);
  std::vector<std::string> errors(size);
  const auto start = std::chrono::steady_clock::now();
  test::run_ranks(size, [&](int rank) {
    Options options;
    options.rank = rank;
    options.size = size;
    options.bootstrap = "in-memory";
    options.timeout = 20s;
    if (rank == 2) options.bcast_algo = BcastAlgo::chain;
    auto join = [&](const std::string& blob, Deadline deadline) { return rendezvous->join(rank, blob, deadline); };
    auto make = [&](const transport::TransportConfig& c) { return fabric.endpoint(c.rank); };
    try {
      CommImpl comm(options, join, nullptr, make);
    } catch (const InvalidArgument& e) {
      errors[static_cast<std::size_t>(rank)] = e.what();
    }
  });
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  for (int rank = 0; rank < size; ++rank) {
    const std::string& text = errors[static_cast<std::size_t>(rank)];
    EXPECT_NE(text.find("rank " + std::to_string(rank) + ": "), std::string::npos) << text;
    EXPECT_NE(text.find("bcast (RCOLL_BCAST_ALGO) is 'auto' on ranks 0 and 1, 'chain' on rank 2"), std::string::npos)
        << "rank " << rank << ": " << text;
  }
}

}  // namespace
}  // namespace rcoll::comm
