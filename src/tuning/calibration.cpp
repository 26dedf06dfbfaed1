#include "tuning/calibration.hpp"

#include <chrono>
#include <optional>
#include <string_view>

#include "rcoll/errors.hpp"
#include "store/keys.hpp"
#include "tuning/link_measurement.hpp"

namespace rcoll::tuning {
namespace {

constexpr std::string_view failed_prefix = "failed: ";

// Rank 0: measures, publishes the result (or why it failed), and returns the published text.
std::string measure_and_publish(transport::Transport& transport, transport::Tag tag, store::Store& job_store,
                                Deadline deadline) {
  std::string text;
  try {
    text = encode_link_cost(*measure_link_pair(transport, tag, deadline));
  } catch (const Error& e) {
    try {
      job_store.set(store::keys::calibration, std::string(failed_prefix) + e.what(), deadline);
    } catch (const Error&) {
      // The original error says more than a failed publication.
    }
    throw;
  }
  job_store.set(store::keys::calibration, text, deadline);
  return text;
}

}  // namespace

LinkModel calibrate_link(bool measure, transport::Transport& transport, transport::Tag tag,
                         store::Store& job_store, Deadline deadline) {
  LinkModel model;
  if (!measure || transport.size() <= 1) {
    model.link = fallback_link_cost(transport.capabilities());
    return model;
  }
  const int rank = transport.rank();
  const auto start = std::chrono::steady_clock::now();
  std::string text;
  if (rank == 0) {
    text = measure_and_publish(transport, tag, job_store, deadline);
  } else {
    if (rank == 1) measure_link_pair(transport, tag, deadline);
    text = job_store.get(store::keys::calibration, deadline);
  }
  std::optional<LinkCost> link = decode_link_cost(text);
  if (!link)
    throw IoError(rank, 0, "calibration",
                  text.starts_with(failed_prefix) ? "rank 0's measurement failed: " + text.substr(failed_prefix.size())
                                                  : "rank 0 published an unreadable calibration '" + text + "'");
  model.link = *link;
  model.measured = true;
  model.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return model;
}

}  // namespace rcoll::tuning
