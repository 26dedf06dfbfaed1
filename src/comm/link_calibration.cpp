#include "comm/link_calibration.hpp"

#include <chrono>
#include <optional>
#include <string_view>

#include "collectives/calibration.hpp"
#include "comm/tags.hpp"
#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "store/keys.hpp"

namespace rcoll::comm {
namespace {

constexpr std::string_view failed_prefix = "failed: ";

// Rank 0: measures, publishes the result (or why it failed), and returns the published text.
std::string measure_and_publish(transport::Transport& transport, store::Store& job_store, Deadline deadline) {
  std::string text;
  try {
    text = collectives::encode_link_cost(*collectives::measure_link_pair(transport, calibration_tag, deadline));
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

LinkModel calibrate_link(const Options& options, transport::Transport& transport, store::Store& job_store,
                         Deadline deadline) {
  LinkModel model;
  if (!options.calibrate || options.size <= 1) {
    model.link = collectives::fallback_link_cost(transport.capabilities());
    return model;
  }
  const auto start = std::chrono::steady_clock::now();
  std::string text;
  if (options.rank == 0) {
    text = measure_and_publish(transport, job_store, deadline);
  } else {
    if (options.rank == 1) collectives::measure_link_pair(transport, calibration_tag, deadline);
    text = job_store.get(store::keys::calibration, deadline);
  }
  std::optional<collectives::LinkCost> link = collectives::decode_link_cost(text);
  if (!link)
    throw IoError(options.rank, 0, "calibration",
                  text.starts_with(failed_prefix) ? "rank 0's measurement failed: " + text.substr(failed_prefix.size())
                                                  : "rank 0 published an unreadable calibration '" + text + "'");
  model.link = *link;
  model.measured = true;
  model.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return model;
}

}  // namespace rcoll::comm
