// The credit that bounds credited EAGER frames on one connection (messages
// above the free eager limit sent without a rendezvous; docs/PROTOCOLS.md),
// in both directions.
//
// Each side starts with `window` bytes of credit towards the other, spends a
// message's length on each credited EAGER frame it sends, and gets it back in
// CREDIT frames once the receiver has delivered or dropped the payload. A
// receiver refuses (ProtocolError) credited frames beyond the window, so its
// unexpected credited payloads never exceed it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rcoll::transport::tcp {

struct CreditLimits {
  std::size_t window = 0;  // 0: no credited EAGER frames
  std::size_t eager = 0;   // largest credited EAGER message; at most window
};

class CreditWindow {
 public:
  explicit CreditWindow(CreditLimits limits);

  // --- sending side
  // Spends `bytes` if a credited EAGER message of that size may go now.
  bool try_spend(std::size_t bytes) noexcept;
  // Credit of payloads that will never leave (their send was cancelled).
  void refund(std::size_t bytes) noexcept { credit_ += bytes; }
  // A CREDIT frame came back. Throws ProtocolError beyond what was spent.
  void on_credit(std::uint64_t bytes);

  // --- receiving side
  // A credited payload of `bytes` arrived (`what`: the frame, for the
  // error); returns the credit it holds. Throws ProtocolError beyond the window
  // (which also keeps a corrupt length from allocating gigabytes).
  std::size_t hold(std::uint64_t bytes, const char* what);
  // `bytes` of held credit were delivered or dropped. Returns the credit to
  // hand back in a CREDIT frame now, or 0 while batching it.
  std::size_t release(std::size_t bytes) noexcept;

 private:
  CreditLimits limits_;
  std::size_t credit_;         // sending side: left to spend
  std::size_t held_ = 0;       // receiving side: credited bytes received and not yet handed back
  std::size_t owed_ = 0;       // of those, the ones ready to hand back
};

}  // namespace rcoll::transport::tcp
