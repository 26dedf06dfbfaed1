// rcoll: collective communication for RDMA networks. The one header to include.
#pragma once

#include "rcoll/alloc.hpp"
#include "rcoll/comm.hpp"
#include "rcoll/errors.hpp"
#include "rcoll/options.hpp"
#include "rcoll/request.hpp"
#include "rcoll/store.hpp"
#include "rcoll/types.hpp"
#include "rcoll/version.hpp"
