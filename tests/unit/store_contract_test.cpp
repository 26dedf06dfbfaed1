// The store contract (store/store.hpp) on every implementation: the
// in-memory rendezvous, the TCP rank service's client (a real server on
// 127.0.0.1), and the bootstrap over a caller's store (store_bootstrap.hpp)
// on rcoll's InMemoryStore and on a FileStore per rank in one directory;
// ranks as threads. A store that is added is added to the list at the
// bottom.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <latch>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/in_memory.hpp"
#include "bootstrap/store_bootstrap.hpp"
#include "bootstrap/tcp_client.hpp"
#include "bootstrap/tcp_server.hpp"
#include "rcoll/errors.hpp"
#include "rcoll/store.hpp"
#include "store/caller_store.hpp"
#include "store/store.hpp"
#include "support/scratch_directory.hpp"
#include "support/run_ranks.hpp"

namespace rcoll::store {
namespace {

using namespace std::chrono_literals;

Deadline soon() { return Deadline::after(10s); }

bootstrap::BootstrapServer::Config server_config(int size) {
  bootstrap::BootstrapServer::Config config;
  config.size = size;
  config.job_token = "store-token";
  config.join_timeout = 10s;
  return config;
}

// The stores of one job of `size` ranks, of the kind the test runs on.
class StoreJob {
 public:
  StoreJob(const std::string& kind, int size) : size_(size) {
    if (kind == "in_memory") {
      rendezvous_ = std::make_unique<bootstrap::InMemoryRendezvous>(size);
    } else if (kind == "caller_memory") {
      memory_ = std::make_unique<InMemoryStore>();
    } else if (kind == "caller_file") {
      directory_ = std::make_unique<test::ScratchDirectory>();
    } else {
      server_ = std::make_unique<bootstrap::BootstrapServer>(server_config(size));
      server_->start();
    }
  }

  // Runs body(rank, that rank's store) on one thread per rank; the stores
  // are joined first (a join waits for every rank).
  void run(const std::function<void(int rank, Store& store)>& body) {
    test::run_ranks(size_, [&](int rank) { body(rank, *join(rank)); });
  }

 private:
  std::unique_ptr<bootstrap::Bootstrap> join(int rank) {
    if (rendezvous_) return rendezvous_->join(rank, "", soon());
    if (memory_ || directory_) {
      // Each rank has its own FileStore object, as ranks in processes do.
      std::shared_ptr<rcoll::Store> caller;
      if (memory_) caller = std::shared_ptr<rcoll::Store>(memory_.get(), [](rcoll::Store*) {});
      else caller = std::make_shared<FileStore>(directory_->path());
      {
        std::lock_guard lock(mutex_);
        callers_.push_back(caller);
      }
      return std::make_unique<bootstrap::StoreBootstrap>(std::make_unique<CallerStore>(*caller), rank, size_, "",
                                                         soon());
    }
    return bootstrap::join_tcp(bootstrap::JoinRequest{server_->address(), "store-token", rank, size_, ""}, soon());
  }

  int size_;
  std::unique_ptr<InMemoryStore> memory_;
  std::unique_ptr<test::ScratchDirectory> directory_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<rcoll::Store>> callers_;  // outlive the ranks' bootstraps
  std::unique_ptr<bootstrap::InMemoryRendezvous> rendezvous_;
  std::unique_ptr<bootstrap::BootstrapServer> server_;
};

class StoreContract : public ::testing::TestWithParam<std::string> {
 protected:
  StoreJob job(int size) const { return StoreJob(GetParam(), size); }
};

std::string value_of(int rank) { return std::string(1000 + rank, static_cast<char>('a' + rank)); }

TEST_P(StoreContract, GetWaitsForTheKeysOfOtherRanks) {
  job(3).run([](int rank, Store& store) {
    if (rank == 0) std::this_thread::sleep_for(50ms);  // the others' gets wait for rank 0's key
    store.set("key-" + std::to_string(rank), value_of(rank), soon());
    for (int r = 0; r < 3; ++r) EXPECT_EQ(store.get("key-" + std::to_string(r), soon()), value_of(r));
  });
}

TEST_P(StoreContract, KeysAreWriteOnce) {
  job(1).run([](int, Store& store) {
    store.set("k", "v", soon());
    EXPECT_NO_THROW(store.set("k", "v", soon())) << "the same value again is no conflict";
    try {
      store.set("k", "other", soon());
      ADD_FAILURE() << "a second set with another value succeeded";
    } catch (const InvalidArgument& error) {
      // A caller's store names it as stored, with rcoll's prefix ('rcoll/k').
      EXPECT_NE(std::string(error.what()).find("k'"), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("write-once"), std::string::npos) << error.what();
    }
    EXPECT_EQ(store.get("k", soon()), "v");
  });
}

TEST_P(StoreContract, GetTimesOutNamingTheKeyAndTheStoreStaysUsable) {
  job(1).run([](int, Store& store) {
    auto start = std::chrono::steady_clock::now();
    try {
      store.get("never-set", Deadline::after(200ms));
      ADD_FAILURE() << "get of a missing key returned";
    } catch (const TimeoutError& error) {
      EXPECT_NE(std::string(error.what()).find("never-set"), std::string::npos) << error.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
    store.set("later", "works", soon());
    EXPECT_EQ(store.get("later", soon()), "works");
  });
}

TEST_P(StoreContract, TryGetDoesNotWait) {
  std::latch published(2);
  job(2).run([&](int rank, Store& store) {
    if (rank == 0) {
      auto start = std::chrono::steady_clock::now();
      EXPECT_EQ(store.try_get("k-0"), std::nullopt);
      EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
      store.set("k-0", "zero", soon());
    }
    published.arrive_and_wait();
    EXPECT_EQ(store.try_get("k-0"), std::optional<std::string>("zero"));
    EXPECT_EQ(store.get("k-0", soon()), "zero");  // in step after a miss
  });
}

TEST_P(StoreContract, WaitReturnsOnceEveryKeyExists) {
  job(3).run([](int rank, Store& store) {
    if (rank > 0) {
      std::this_thread::sleep_for(rank * 30ms);
      store.set("part-" + std::to_string(rank), "done", soon());
      return;
    }
    store.wait({"part-1", "part-2"}, soon());
    EXPECT_EQ(store.try_get("part-1"), std::optional<std::string>("done"));
    EXPECT_EQ(store.try_get("part-2"), std::optional<std::string>("done"));
  });
}

TEST_P(StoreContract, WaitTimesOutNamingAMissingKey) {
  job(1).run([](int, Store& store) {
    store.set("here", "1", soon());
    try {
      store.wait({"here", "missing"}, Deadline::after(200ms));
      ADD_FAILURE() << "wait returned with a key missing";
    } catch (const TimeoutError& error) {
      EXPECT_NE(std::string(error.what()).find("missing"), std::string::npos) << error.what();
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreContract, ::testing::Values("in_memory", "tcp", "caller_memory", "caller_file"),
                         [](const auto& info) { return info.param; });

// The in-memory store has no service to lose; the TCP one has.
TEST(TcpStore, ALostServiceIsAnIoError) {
  bootstrap::BootstrapServer server(server_config(1));
  server.start();
  auto store = bootstrap::join_tcp(bootstrap::JoinRequest{server.address(), "store-token", 0, 1, ""}, soon());
  store->set("before", "1", soon());
  server.stop();
  EXPECT_THROW(store->get("before-or-after", soon()), IoError);
  EXPECT_THROW(store->set("after", "1", soon()), IoError);
  EXPECT_THROW(store->try_get("before"), IoError);
}

}  // namespace
}  // namespace rcoll::store
