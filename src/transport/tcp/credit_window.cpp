#include "transport/tcp/credit_window.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "transport/tcp/rx_stream.hpp"

namespace rcoll::transport::tcp {

CreditWindow::CreditWindow(CreditLimits limits)
    : limits_{limits.window, std::min(limits.eager, limits.window)}, credit_(limits.window) {}

bool CreditWindow::try_spend(std::size_t bytes) noexcept {
  if (bytes > limits_.eager || bytes > credit_) return false;
  credit_ -= bytes;
  return true;
}

void CreditWindow::on_credit(std::uint64_t bytes) {
  if (bytes > limits_.window - credit_)
    throw ProtocolError("CREDIT of " + std::to_string(bytes) + " bytes beyond the window (" +
                        std::to_string(credit_) + " of " + std::to_string(limits_.window) + " bytes unspent)");
  credit_ += static_cast<std::size_t>(bytes);
}

std::size_t CreditWindow::hold(std::uint64_t bytes, const char* what) {
  if (bytes > limits_.window - held_)
    throw ProtocolError(std::string(what) + " of " + std::to_string(bytes) + " bytes beyond the credit window (" +
                        std::to_string(held_) + " of " + std::to_string(limits_.window) + " bytes in use)");
  held_ += static_cast<std::size_t>(bytes);
  return static_cast<std::size_t>(bytes);
}

// Hands credit back in frames of at least one largest credited message (at
// most a quarter window), so that a stream of messages costs few frames
// while what the receiver holds back stays below one such message.
std::size_t CreditWindow::release(std::size_t bytes) noexcept {
  owed_ += bytes;
  const std::size_t batch = std::min(limits_.window / 4, limits_.eager);
  if (owed_ < std::max<std::size_t>(batch, 1)) return 0;
  held_ -= owed_;
  return std::exchange(owed_, 0);
}

}  // namespace rcoll::transport::tcp
