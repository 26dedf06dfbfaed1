// store::TorchStoreClient against a real torch.distributed.TCPStore, which
// torch_store_job.py starts and names in RCOLL_TEST_TORCH_STORE
// ("127.0.0.1:port"); run without it, every case fails. The job set
// "from-python" to "+hello" and "foreign" to "plain" beforehand, and reads
// "from-cpp" afterwards.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "rcoll/errors.hpp"
#include "store/tcp_store_client.hpp"
#include "support/free_port.hpp"

namespace rcoll::store {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

Clock::time_point soon() { return Clock::now() + 10s; }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class TorchStore : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* address = std::getenv("RCOLL_TEST_TORCH_STORE");
    ASSERT_NE(address, nullptr)
        << "RCOLL_TEST_TORCH_STORE is unset: run this through tests/torchrun/torch_store_job.py";
    address_ = address;
  }
  // A key of this test's own (the cases share one server).
  static std::string key(const std::string& name) {
    return std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "/" + name;
  }

  std::string address_;
};

TEST_F(TorchStore, SetThenGetAndTryGet) {
  TorchStoreClient store(address_, 3);
  store.set(key("k"), "value", soon());
  EXPECT_EQ(store.get(key("k"), soon()), "value");
  EXPECT_EQ(store.try_get(key("k")), "value");
  TorchStoreClient other(address_, 4);
  EXPECT_EQ(other.get(key("k"), soon()), "value") << "another connection sees it";
}

TEST_F(TorchStore, KeysAreWriteOnceAndTheFirstValueStays) {
  TorchStoreClient store(address_, 3);
  store.set(key("k"), "first", soon());
  EXPECT_NO_THROW(store.set(key("k"), "first", soon())) << "the same value again is no conflict";
  try {
    TorchStoreClient(address_, 5).set(key("k"), "second", soon());
    ADD_FAILURE() << "a second set with another value succeeded";
  } catch (const InvalidArgument& error) {
    const std::string text = error.what();
    EXPECT_TRUE(contains(text, "rank 5: ")) << text;
    EXPECT_TRUE(contains(text, address_)) << text;
    EXPECT_TRUE(contains(text, key("k") + "'")) << text;
    EXPECT_TRUE(contains(text, "write-once")) << text;
  }
  EXPECT_EQ(store.get(key("k"), soon()), "first");
}

// COMPARE_SET with an empty expected value replaces an empty value: the
// client's marker byte keeps an empty value write-once too.
TEST_F(TorchStore, AnEmptyValueIsWriteOnceToo) {
  TorchStoreClient store(address_, 3);
  store.set(key("empty"), "", soon());
  EXPECT_NO_THROW(store.set(key("empty"), "", soon()));
  EXPECT_THROW(store.set(key("empty"), "x", soon()), InvalidArgument);
  EXPECT_EQ(store.get(key("empty"), soon()), "");
  EXPECT_EQ(store.try_get(key("empty")), "");
}

TEST_F(TorchStore, ValuesAreBinaryAndMayBeLarge) {
  TorchStoreClient store(address_, 3);
  const std::string binary("a\0b\xff\n", 5);
  const std::string large(1 << 20, 'x');
  store.set(key("binary é"), binary, soon());
  store.set(key("large"), large, soon());
  EXPECT_EQ(store.get(key("binary é"), soon()), binary);
  EXPECT_EQ(store.get(key("large"), soon()), large);
}

TEST_F(TorchStore, TryGetOfAMissingKeyIsNulloptAtOnce) {
  TorchStoreClient store(address_, 3);
  const auto start = Clock::now();
  EXPECT_EQ(store.try_get(key("missing")), std::nullopt);
  EXPECT_LT(Clock::now() - start, 2s);
}

TEST_F(TorchStore, GetOfAMissingKeyTimesOutAtItsDeadlineAndTheStoreGoesOn) {
  TorchStoreClient store(address_, 3);
  const auto start = Clock::now();
  try {
    store.get(key("missing"), start + 300ms);
    ADD_FAILURE() << "get of a missing key returned";
  } catch (const TimeoutError& error) {
    const std::string text = error.what();
    EXPECT_TRUE(contains(text, "rank 3: ")) << text;
    EXPECT_TRUE(contains(text, address_)) << text;
    EXPECT_TRUE(contains(text, key("missing") + "'")) << text;
  }
  const auto waited = Clock::now() - start;
  EXPECT_GE(waited, 300ms);
  EXPECT_LT(waited, 2s) << "the wait outlived its deadline";
  // The timed-out WAIT closed the connection; the next call makes another.
  store.set(key("after"), "v", soon());
  EXPECT_EQ(store.get(key("after"), soon()), "v");
  TorchStoreClient(address_, 4).set(key("missing"), "late", soon());
  EXPECT_EQ(store.get(key("missing"), soon()), "late");
}

TEST_F(TorchStore, GetWaitsForAKeyThatAnotherClientSetsLater) {
  TorchStoreClient store(address_, 3);
  std::thread writer([&] {
    std::this_thread::sleep_for(200ms);
    TorchStoreClient(address_, 4).set(key("later"), "here", soon());
  });
  const auto start = Clock::now();
  EXPECT_EQ(store.get(key("later"), soon()), "here");
  EXPECT_GE(Clock::now() - start, 150ms);
  writer.join();
}

TEST_F(TorchStore, ReadsWhatPythonWroteAndWritesWhatPythonReads) {
  TorchStoreClient store(address_, 3);
  EXPECT_EQ(store.get("from-python", soon()), "hello");
  store.set("from-cpp", "world", soon());
  try {
    store.get("foreign", soon());
    ADD_FAILURE() << "a value without the client's marker was read";
  } catch (const InvalidArgument& error) {
    EXPECT_TRUE(contains(error.what(), "'foreign' holds a value that rcoll did not write")) << error.what();
  }
}

TEST_F(TorchStore, AStoreNobodyServesIsAnIoErrorAtTheDeadline) {
  const std::string nowhere = "127.0.0.1:" + std::to_string(test::free_tcp_port());
  TorchStoreClient store(nowhere, 3);
  const auto start = Clock::now();
  try {
    store.set("k", "v", start + 300ms);
    ADD_FAILURE() << "set on a store nobody serves succeeded";
  } catch (const IoError& error) {
    const std::string text = error.what();
    EXPECT_EQ(error.rank(), 3);
    EXPECT_TRUE(contains(text, nowhere)) << text;
    EXPECT_TRUE(contains(text, "'k'")) << text;
    EXPECT_TRUE(contains(text, "Connection refused")) << text;
  }
  EXPECT_LT(Clock::now() - start, 2s);
}

TEST_F(TorchStore, AMalformedAddressIsAnInvalidArgument) {
  EXPECT_THROW(TorchStoreClient("no-port", 0), InvalidArgument);
  EXPECT_THROW(TorchStoreClient("127.0.0.1:99999", 0), InvalidArgument);
}

}  // namespace
}  // namespace rcoll::store
