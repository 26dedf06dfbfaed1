// In-process transport: ranks are threads of one process and a message is
// one memcpy between their buffers. Used by tests and by the collective
// suite to check schedules independently of any network backend.
#pragma once

#include <memory>

#include "transport/transport.hpp"

namespace rcoll::transport {

class InprocFabric {
 public:
  explicit InprocFabric(int size);
  ~InprocFabric();
  InprocFabric(const InprocFabric&) = delete;
  InprocFabric& operator=(const InprocFabric&) = delete;

  // The transport of `rank`; the fabric must outlive it. One per rank.
  std::unique_ptr<Transport> endpoint(int rank);

  struct Shared;

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace rcoll::transport
