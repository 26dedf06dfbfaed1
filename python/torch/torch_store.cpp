#include "torch_store.hpp"

#include <chrono>
#include <cstdint>
#include <exception>
#include <vector>

#include "rcoll/errors.hpp"

namespace rcoll::torch_backend {
namespace {

std::vector<std::uint8_t> bytes(const std::string& text) { return {text.begin(), text.end()}; }
std::string text(const std::vector<std::uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

}  // namespace

TorchStore::TorchStore(c10::intrusive_ptr<c10d::Store> store, int rank) : store_(std::move(store)), rank_(rank) {}

void TorchStore::set(const std::string& key, const std::string& value, Clock::time_point) {
  std::string held;
  try {
    held = text(store_->compareSet(key, {}, bytes(value)));
  } catch (const std::exception& e) {
    throw IoError(rank_, -1, "torch store set " + key, e.what());
  }
  if (held != value)
    throw InvalidArgument("rank " + std::to_string(rank_) + ": torch store: " + key +
                          " already holds another value (keys are written once)");
  // torch's TCPStore does not wake the waiters of a key that compareSet
  // creates; a set() of the same value does.
  try {
    store_->set(key, bytes(value));
  } catch (const std::exception& e) {
    throw IoError(rank_, -1, "torch store set " + key, e.what());
  }
}

std::string TorchStore::get(const std::string& key, Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  try {
    // c10d takes 0 as "the store's default timeout": wait at least 1 ms.
    store_->wait({key}, std::max(left, std::chrono::milliseconds(1)));
  } catch (const std::exception& e) {
    if (Clock::now() >= deadline)
      throw TimeoutError("rank " + std::to_string(rank_) + ": torch store: timed out waiting for key " + key + " (" +
                         e.what() + ")");
    throw IoError(rank_, -1, "torch store wait " + key, e.what());
  }
  try {
    return text(store_->get(key));
  } catch (const std::exception& e) {
    throw IoError(rank_, -1, "torch store get " + key, e.what());
  }
}

std::optional<std::string> TorchStore::try_get(const std::string& key) {
  try {
    if (!store_->check({key})) return std::nullopt;
    return text(store_->get(key));
  } catch (const std::exception& e) {
    throw IoError(rank_, -1, "torch store check " + key, e.what());
  }
}

}  // namespace rcoll::torch_backend
