// A key-value store that every rank of a job can reach, for building a
// communicator without rcoll's bootstrap service: Comm::create(options,
// store). A framework that already has one (a launcher's, a shared file
// system) implements Store over it; rcoll ships two:
// - InMemoryStore: ranks that are threads of one process share one object;
// - FileStore: a directory every rank can reach (a shared file system for
//   ranks on several hosts, any local directory for ranks of one host).
//
// Through the store each rank publishes its endpoint at creation, and later
// what explains a failure (which rank failed first, and why, for the
// others' errors). The store is not trusted with secrets: the job token
// (Options::job_token) never goes through it, and peers still prove it to
// each other when they connect (SECURITY.md).
//
// Contract for an implementation:
// - Keys are written once. set() of a key that holds the same value does
//   nothing; of one that holds another value it throws InvalidArgument
//   naming the key, and the first value stays (rcoll relies on "first
//   wins" for the first failure of a job).
// - get() waits until the key exists and returns its value; at `deadline`
//   it throws TimeoutError naming the key.
// - try_get() returns the value if the key exists now, else nullopt,
//   without waiting for it.
// - IoError when the store cannot be reached; the store stays usable after
//   a TimeoutError or a refused set.
// - The store outlives every communicator created on it. Several ranks'
//   calls may come at once from different threads (ranks as threads share
//   an InMemoryStore); one rank's calls come from one thread at a time.
// - Keys of one communicator start with "rcoll/"; a store (or a directory)
//   serves one communicator's creation: a second one needs a fresh store.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace rcoll {

class Store {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~Store() = default;

  virtual void set(const std::string& key, const std::string& value, Clock::time_point deadline) = 0;
  virtual std::string get(const std::string& key, Clock::time_point deadline) = 0;
  // Default: get() with a deadline that has passed; an implementation whose
  // get() cannot answer at once then should override it.
  virtual std::optional<std::string> try_get(const std::string& key);
};

// For ranks that are threads of one process: they share one object.
class InMemoryStore final : public Store {
 public:
  InMemoryStore();
  ~InMemoryStore() override;
  InMemoryStore(const InMemoryStore&) = delete;
  InMemoryStore& operator=(const InMemoryStore&) = delete;

  void set(const std::string& key, const std::string& value, Clock::time_point deadline) override;
  std::string get(const std::string& key, Clock::time_point deadline) override;
  std::optional<std::string> try_get(const std::string& key) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// A directory every rank reaches; each rank opens its own FileStore on it.
// A key is a file, published whole by link(2) (atomic, and refused when
// the file exists: first wins); get() polls for it (1 ms, doubling to
// 50 ms). The directory must exist and be empty of an earlier job's keys;
// rcoll does not remove them (the caller owns the directory).
class FileStore final : public Store {
 public:
  explicit FileStore(std::string directory);

  void set(const std::string& key, const std::string& value, Clock::time_point deadline) override;
  std::string get(const std::string& key, Clock::time_point deadline) override;
  std::optional<std::string> try_get(const std::string& key) override;

 private:
  std::string path_of(const std::string& key) const;
  std::string directory_;
};

}  // namespace rcoll
