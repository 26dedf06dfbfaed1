// make_request: requests behave like any shared Request, and their memory
// is reused per thread (the point of the pool), whichever thread releases it.
// Run under ASan too: there malloc never hands back a freed address soon,
// so an address seen twice can only come from the pool.
#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "transport/request.hpp"

namespace rcoll::transport {
namespace {

TEST(RequestPool, MakesAPendingRequestWithItsFields) {
  RequestPtr r = make_request(Request::Kind::recv, 3, 42, 100);
  EXPECT_EQ(r->kind(), Request::Kind::recv);
  EXPECT_EQ(r->peer(), 3);
  EXPECT_EQ(r->tag(), 42u);
  EXPECT_EQ(r->capacity(), 100u);
  EXPECT_TRUE(r->pending());
  r->complete(7);
  EXPECT_EQ(r->bytes(), 7u);
  EXPECT_EQ(r->state(), Request::State::done);
}

TEST(RequestPool, AReleasedRequestsMemoryServesTheNextOne) {
  const Request* first = make_request(Request::Kind::send, 0, 1, 8).get();  // released at once
  RequestPtr second = make_request(Request::Kind::send, 0, 2, 8);
  EXPECT_EQ(second.get(), first);
  EXPECT_EQ(second->tag(), 2u);
  EXPECT_TRUE(second->pending());
}

TEST(RequestPool, ManyLiveRequestsAreDistinctAndSurviveRelease) {
  std::vector<RequestPtr> live;
  std::set<const Request*> addresses;
  for (int i = 0; i < 300; ++i) {  // more than the list keeps
    live.push_back(make_request(Request::Kind::recv, i, static_cast<Tag>(i), 1));
    addresses.insert(live.back().get());
  }
  EXPECT_EQ(addresses.size(), live.size());
  for (int i = 0; i < 300; ++i) EXPECT_EQ(live[static_cast<std::size_t>(i)]->peer(), i);
  live.clear();
  RequestPtr again = make_request(Request::Kind::recv, 1, 1, 1);
  EXPECT_TRUE(addresses.count(again.get()) == 1);  // from the list
}

TEST(RequestPool, ARequestMadeOnOneThreadCanBeReleasedOnAnother) {
  RequestPtr r = make_request(Request::Kind::send, 1, 5, 16);
  const Request* address = r.get();
  const Request* reused = nullptr;
  std::thread other([&] {
    RequestPtr own = make_request(Request::Kind::recv, 2, 6, 16);  // this thread's list exists from here
    r.reset();  // the other thread's block joins this thread's list...
    reused = make_request(Request::Kind::send, 2, 7, 16).get();  // ...and serves the next request
  });
  other.join();
  EXPECT_EQ(reused, address);
}

}  // namespace
}  // namespace rcoll::transport
