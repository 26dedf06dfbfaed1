// Every error a rank raises once its rank is known starts with "rank R: ",
// including those the typed std::span overloads raise themselves
// (environment errors: comm_env_test.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rcoll/rcoll.hpp"

namespace rcoll {
namespace {

TEST(CommErrorText, ASpanLengthErrorNamesTheRank) {
  Options o;
  o.rank = 0;
  o.size = 1;
  Comm comm = Comm::create(o);
  std::vector<float> a(3), b(4);
  try {
    comm.allreduce(std::span<const float>(a), std::span<float>(b), ReduceOp::sum);
    ADD_FAILURE() << "spans of 3 and 4 elements were accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "rank 0: allreduce: send span has 3 elements but recv span has 4");
  }
}

// A rank outside the world is not a rank to name: "rank unknown", never "rank -1".
TEST(CommErrorText, AnInvalidRankIsNotNamedAsARank) {
  for (int bad : {-1, 2, 7}) {
    Options o;
    o.rank = bad;
    o.size = 2;
    o.bootstrap = "127.0.0.1:1";
    try {
      Comm comm = Comm::create(o);
      ADD_FAILURE() << "rank " << bad << " of 2 was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()), "rank unknown: create: rank " + std::to_string(bad) + " is outside 0..1");
    }
  }
}

}  // namespace
}  // namespace rcoll
